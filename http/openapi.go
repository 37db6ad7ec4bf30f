package http

import (
	"bytes"
	_ "embed"
	"net/http"
	"strconv"
	"sync"

	"github.com/tenure-dev/tenure"
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
	w.Write(servedOpenAPI())
}

// openAPIVersion is the placeholder info.version the document is kept
// with; the server answers with the build's version (tenure.Version).
const openAPIVersion = `"version": "1"`

// servedOpenAPI is the document with the running build's version.
var servedOpenAPI = sync.OnceValue(func() []byte {
	return bytes.Replace(OpenAPI, []byte(openAPIVersion), []byte(`"version": `+strconv.Quote(tenure.Version())), 1)
})
