package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tenure-dev/tenure"
)

// CreateKey stores a new API key for k's name and principal (the store sets
// ID and CreatedAt and fills the principal's defaults) and returns it with
// its secret. Only the secret's hash is stored: the secret cannot be shown
// again. Errors: CodeInvalid (bad name or principal).
func (s *Store) CreateKey(ctx context.Context, k tenure.APIKey) (tenure.APIKey, string, error) {
	k, secret, _, err := s.createKey(ctx, k, false)
	if err != nil {
		return tenure.APIKey{}, "", fmt.Errorf("create key: %w", err)
	}
	return k, secret, nil
}

// CreateFirstKey creates k like CreateKey, but only when the store holds no
// key at all, revoked ones included; created reports whether it did. The
// check and the insert share one write transaction, so two servers starting
// on an empty database create one key between them.
func (s *Store) CreateFirstKey(ctx context.Context, k tenure.APIKey) (key tenure.APIKey, secret string, created bool, err error) {
	k, secret, created, err = s.createKey(ctx, k, true)
	if err != nil {
		return tenure.APIKey{}, "", false, fmt.Errorf("create first key: %w", err)
	}
	return k, secret, created, nil
}

func (s *Store) createKey(ctx context.Context, k tenure.APIKey, onlyFirst bool) (tenure.APIKey, string, bool, error) {
	if s.w == nil {
		return k, "", false, errClosed
	}
	k, secret, body, err := tenure.NewAPIKey(k, s.opt.Hierarchy, s.now())
	if err != nil {
		return k, "", false, err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return k, "", false, keyStoreError(err)
	}
	defer tx.Rollback()
	if onlyFirst {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_keys`).Scan(&n); err != nil {
			return k, "", false, keyStoreError(err)
		}
		if n > 0 {
			return tenure.APIKey{}, "", false, nil
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, hash, name, tenant_id, principal, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		k.ID, tenure.HashAPIKey(secret), k.Name, k.Principal.TenantID, string(body), nanos(k.CreatedAt)); err != nil {
		return k, "", false, keyStoreError(err)
	}
	if err := tx.Commit(); err != nil {
		return k, "", false, keyStoreError(err)
	}
	return k, secret, true, nil
}

const apiKeyCols = `id, name, principal, created_at, revoked_at`

// KeyByHash returns the key whose secret hashes to hash (see
// tenure.HashAPIKey), revoked or not. Errors: CodeNotFound.
func (s *Store) KeyByHash(ctx context.Context, hash string) (tenure.APIKey, error) {
	if s.r == nil {
		return tenure.APIKey{}, fmt.Errorf("key by hash: %w", errClosed)
	}
	k, err := scanAPIKey(s.r.QueryRowContext(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return k, fmt.Errorf("key by hash: %w", tenure.Errorf(tenure.CodeNotFound, "key", "no such API key"))
	}
	if err != nil {
		return k, fmt.Errorf("key by hash: %w", keyStoreError(err))
	}
	return k, nil
}

// Keys lists the API keys, oldest first: a tenant's only when tenant is not
// empty. Secrets are never listed; they are not stored.
func (s *Store) Keys(ctx context.Context, tenant string) ([]tenure.APIKey, error) {
	if s.r == nil {
		return nil, fmt.Errorf("list keys: %w", errClosed)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE ? = '' OR tenant_id = ? ORDER BY created_at, id`, tenant, tenant)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", keyStoreError(err))
	}
	defer rows.Close()
	out := []tenure.APIKey{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", keyStoreError(err))
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list keys: %w", keyStoreError(err))
	}
	return out, nil
}

// RevokeKey revokes the key with the given id: requests made with it are
// refused from then on. Revoking a revoked key changes nothing and returns
// it. Errors: CodeNotFound.
func (s *Store) RevokeKey(ctx context.Context, id string) (tenure.APIKey, error) {
	if s.w == nil {
		return tenure.APIKey{}, fmt.Errorf("revoke key: %w", errClosed)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return tenure.APIKey{}, fmt.Errorf("revoke key: %w", keyStoreError(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, nanos(s.now().UTC()), id); err != nil {
		return tenure.APIKey{}, fmt.Errorf("revoke key: %w", keyStoreError(err))
	}
	k, err := scanAPIKey(tx.QueryRowContext(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return k, fmt.Errorf("revoke key: %w", tenure.Errorf(tenure.CodeNotFound, "id", "no API key %q", id))
	}
	if err != nil {
		return k, fmt.Errorf("revoke key: %w", keyStoreError(err))
	}
	if err := tx.Commit(); err != nil {
		return k, fmt.Errorf("revoke key: %w", keyStoreError(err))
	}
	return k, nil
}

// scanAPIKey decodes one row of apiKeyCols.
func scanAPIKey(row interface{ Scan(...any) error }) (tenure.APIKey, error) {
	var (
		k         tenure.APIKey
		principal string
		created   int64
		revoked   sql.NullInt64
	)
	if err := row.Scan(&k.ID, &k.Name, &principal, &created, &revoked); err != nil {
		return k, err
	}
	if err := json.Unmarshal([]byte(principal), &k.Principal); err != nil {
		return k, fmt.Errorf("decode principal of key %s: %w", k.ID, err)
	}
	k.CreatedAt = fromNanos(created)
	if revoked.Valid {
		t := fromNanos(revoked.Int64)
		k.RevokedAt = &t
	}
	return k, nil
}

// keyStoreError classifies a database failure: a canceled or timed-out
// context keeps its meaning, anything else is internal.
func keyStoreError(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "deadline exceeded", Err: err}
	case errors.Is(err, context.Canceled):
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "canceled", Err: err}
	}
	return tenure.Internal("storage failure", err)
}
