package sqlite

import "context"

// Ping checks that the database answers. Errors: CodeUnavailable.
func (s *Store) Ping(ctx context.Context) error {
	if s.r == nil {
		return errClosed
	}
	return s.r.PingContext(ctx)
}
