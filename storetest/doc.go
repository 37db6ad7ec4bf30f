// Package storetest is the conformance suite every tenure.Store must pass.
// A backend's tests call Run with a factory that opens a fresh, empty store
// using the given clock:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, now func() time.Time) tenure.Store {
//			s := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Now: now})
//			...
//		})
//	}
package storetest
