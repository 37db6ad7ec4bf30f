package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
)

var unsafeName = regexp.MustCompile(`[^a-z0-9_]+`)

// Scratch creates an empty schema in the database at dbURL, for a store
// that lives only as long as a run (tenure eval), and returns a URL whose
// connections use it and a function that drops it. The schema's name
// starts with tenure_scratch_ and holds name. The URL's role must be
// allowed to create schemas. Errors: CodeInvalid, CodeUnavailable.
func Scratch(ctx context.Context, dbURL, name string) (string, func() error, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", nil, tenure.Errorf(tenure.CodeInvalid, "db", "bad PostgreSQL URL: %v", err)
	}
	var b [4]byte
	rand.Read(b[:])
	schema := fmt.Sprintf("tenure_scratch_%s_%s", hex.EncodeToString(b[:]), unsafeName.ReplaceAllString(name, "_"))
	if len(schema) > 63 {
		schema = schema[:63]
	}
	exec := func(ctx context.Context, sql string) error {
		c, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			return unavailable(err)
		}
		defer c.Close(context.Background())
		_, err = c.Exec(ctx, sql)
		return err
	}
	if err := exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
	}
	return u.String(), drop, nil
}
