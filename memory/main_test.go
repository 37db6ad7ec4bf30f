package memory_test

import (
	"os"
	"testing"

	"github.com/tenure-dev/tenure/internal/pgtest"
)

// TestMain drops the PostgreSQL schemas the tests used (internal/pgtest).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
