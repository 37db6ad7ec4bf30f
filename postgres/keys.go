package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
)

// CreateKey stores a new API key for k's name and principal (the store sets
// ID and CreatedAt and fills the principal's defaults) and returns it with
// its secret; only the secret's hash is stored. Errors: CodeInvalid.
func (s *Store) CreateKey(ctx context.Context, k tenure.APIKey) (tenure.APIKey, string, error) {
	k, secret, _, err := s.createKey(ctx, k, false)
	if err != nil {
		return tenure.APIKey{}, "", fmt.Errorf("create key: %w", err)
	}
	return k, secret, nil
}

// CreateFirstKey creates k like CreateKey, but only when the database
// holds no key at all; created reports whether it did. The check and the
// insert run under the store's write lock, so two servers starting on an
// empty database create one key between them.
func (s *Store) CreateFirstKey(ctx context.Context, k tenure.APIKey) (key tenure.APIKey, secret string, created bool, err error) {
	k, secret, created, err = s.createKey(ctx, k, true)
	if err != nil {
		return tenure.APIKey{}, "", false, fmt.Errorf("create first key: %w", err)
	}
	return k, secret, created, nil
}

func (s *Store) createKey(ctx context.Context, k tenure.APIKey, onlyFirst bool) (tenure.APIKey, string, bool, error) {
	if s.pool == nil {
		return k, "", false, errClosed
	}
	k, secret, body, err := tenure.NewAPIKey(k, s.opt.Hierarchy, s.now())
	if err != nil {
		return k, "", false, err
	}
	tx, err := (*backend)(s).Begin(ctx)
	if err != nil {
		return k, "", false, keyStoreError(err)
	}
	t := tx.(*writeTx)
	defer t.Rollback()
	if onlyFirst {
		if err := t.as(ctx, system); err != nil {
			return k, "", false, keyStoreError(err)
		}
		var n int
		if err := t.c.QueryRow(ctx, `SELECT count(*) FROM api_keys`).Scan(&n); err != nil {
			return k, "", false, keyStoreError(err)
		}
		if n > 0 {
			return tenure.APIKey{}, "", false, nil
		}
	}
	if err := t.as(ctx, k.Principal.TenantID); err != nil {
		return k, "", false, keyStoreError(err)
	}
	if _, err := t.c.Exec(ctx, `INSERT INTO api_keys (id, hash, name, tenant_id, principal, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.ID, tenure.HashAPIKey(secret), k.Name, k.Principal.TenantID, string(body), nanos(k.CreatedAt)); err != nil {
		return k, "", false, keyStoreError(err)
	}
	if err := t.Commit(); err != nil {
		return k, "", false, keyStoreError(err)
	}
	return k, secret, true, nil
}

const apiKeyCols = `id, name, principal, created_at, revoked_at`

// KeyByHash returns the key whose secret hashes to hash, revoked or not.
// It reads as the system: the key is what names the tenant. Errors:
// CodeNotFound, CodeUnavailable.
func (s *Store) KeyByHash(ctx context.Context, hash string) (k tenure.APIKey, err error) {
	err = (*backend)(s).read(ctx, system, func(c querier) error {
		k, err = scanAPIKey(c.QueryRow(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE hash = $1`, hash))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
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
	as := tenant
	if tenant == "" {
		as = system
	}
	out := []tenure.APIKey{}
	err := (*backend)(s).read(ctx, as, func(c querier) error {
		rows, err := c.Query(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE $1 = '' OR tenant_id = $1 ORDER BY created_at, id`, tenant)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			k, err := scanAPIKey(rows)
			if err != nil {
				return err
			}
			out = append(out, k)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", keyStoreError(err))
	}
	return out, nil
}

// RevokeKey revokes the key with the given id. Revoking a revoked key
// changes nothing and returns it. Errors: CodeNotFound.
func (s *Store) RevokeKey(ctx context.Context, id string) (tenure.APIKey, error) {
	if s.pool == nil {
		return tenure.APIKey{}, fmt.Errorf("revoke key: %w", errClosed)
	}
	c, err := (*backend)(s).begin(ctx, "BEGIN; "+setTenant(system))
	if err != nil {
		return tenure.APIKey{}, fmt.Errorf("revoke key: %w", keyStoreError(err))
	}
	defer c.Release()
	k, err := func() (tenure.APIKey, error) {
		if _, err := c.Exec(ctx, `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, nanos(s.now().UTC()), id); err != nil {
			return tenure.APIKey{}, err
		}
		k, err := scanAPIKey(c.QueryRow(ctx, `SELECT `+apiKeyCols+` FROM api_keys WHERE id = $1`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return k, tenure.Errorf(tenure.CodeNotFound, "id", "no API key %q", id)
		}
		if err != nil {
			return k, err
		}
		_, err = c.Exec(ctx, "COMMIT")
		return k, err
	}()
	if err != nil {
		c.Exec(context.Background(), "ROLLBACK")
		return k, fmt.Errorf("revoke key: %w", keyStoreError(err))
	}
	return k, nil
}

func scanAPIKey(row pgx.Row) (tenure.APIKey, error) {
	var (
		k         tenure.APIKey
		principal string
		created   int64
		revoked   *int64
	)
	if err := row.Scan(&k.ID, &k.Name, &principal, &created, &revoked); err != nil {
		return k, err
	}
	if err := json.Unmarshal([]byte(principal), &k.Principal); err != nil {
		return k, fmt.Errorf("decode principal of key %s: %w", k.ID, err)
	}
	k.CreatedAt = fromNanos(created)
	if revoked != nil {
		t := fromNanos(*revoked)
		k.RevokedAt = &t
	}
	return k, nil
}

// keyStoreError classifies a database failure.
func keyStoreError(err error) error {
	var te *tenure.Error
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "deadline exceeded", Err: err}
	case errors.Is(err, context.Canceled):
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "canceled", Err: err}
	}
	return tenure.Internal("storage failure", err)
}
