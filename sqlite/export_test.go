package sqlite

import "testing"

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
