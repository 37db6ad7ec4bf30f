package sqlite

import (
	"context"
	"testing"

	"github.com/tenure-dev/tenure/engine"
)

// SetIndexBits narrows the full-text index's rowid partitions for a test
// (see index.go), so that tenants, threads and positions spill; it
// restores them when the test ends. Tests that call it must not run in
// parallel.
func SetIndexBits(t *testing.T, pos, thread, tenant int) {
	t.Helper()
	p, th, tn := ftsPosBits, ftsThreadBits, ftsTenantBits
	ftsPosBits, ftsThreadBits, ftsTenantBits = pos, thread, tenant
	t.Cleanup(func() { ftsPosBits, ftsThreadBits, ftsTenantBits = p, th, tn })
}

// ObjectHits is the full-text leg of the store's compile candidates: the
// seqs of the f.Limit best matches of f.Words among the objects of tenant
// that f.Keep reads in f.Scope, best first.
func ObjectHits(ctx context.Context, s *Store, tenant string, f engine.CandidateFilter) ([]int64, error) {
	scope, args := scopeFilter(f)
	db, err := (*backend)(s).reader()
	if err != nil {
		return nil, err
	}
	return objectHits(ctx, db, tenant, f, scope, args)
}
