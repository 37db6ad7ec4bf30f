// Command tenure reads and writes a Tenure store from the command line:
// put objects as JSON, read them in the three bitemporal read modes, list,
// retire and end sessions. It opens the embedded SQLite store named by
// --db (default $TENURE_DB, else ./tenure.db), or the PostgreSQL store
// when --db is a postgres:// URL (store.go picks by the URL's scheme).
//
// Each subcommand lives in its own file and parses its own flags; every
// input is validated before the store is opened, so invalid input never
// writes anything. Errors exit with tenure.ExitCode of their code.
//
// Run "tenure help" for the commands and flags.
package main
