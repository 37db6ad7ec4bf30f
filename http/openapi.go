package http

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the OpenAPI 3.1 description of the API, served at
// GET /v1/openapi.json. Its paths and methods are exactly the server's
// routes (a test checks).
//
//go:embed openapi.json
var OpenAPI []byte

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(OpenAPI)
}
