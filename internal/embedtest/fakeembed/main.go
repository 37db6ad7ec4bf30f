// Command fakeembed serves the fake embedding endpoint of package
// embedtest on an address of its own, to check the wiring of semantic
// retrieval end to end (tenure eval --embedder openai --embed-url
// http://ADDR/v1) where no model can be reached. Its vectors are a bag of
// words with a few synonyms: numbers measured with it say nothing about
// retrieval quality.
package main

import (
	"flag"
	"log"
	"net/http"
	"time"

	"github.com/tenure-dev/tenure/internal/embedtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:11435", "listen `address`")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: embedtest.NewHandler(), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("fakeembed: http://%s/v1/embeddings", *addr)
	log.Fatal(srv.ListenAndServe())
}
