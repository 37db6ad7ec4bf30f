package main

import "os"

// defaultDBPath is the --db default. Environment variables are read here
// and nowhere else, so a command's behaviour is visible in its flags.
func defaultDBPath() string {
	if p := os.Getenv("TENURE_DB"); p != "" {
		return p
	}
	return "./tenure.db"
}
