package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/internal/pgtest"
	"github.com/tenure-dev/tenure/postgres"
)

// tenantTables are the tables that hold a tenant's rows.
var tenantTables = []string{"objects", "object_deps", "tombstones", "resolutions", "messages", "fts_stats", "fts_terms", "watermarks",
	"api_keys", "workflows", "workflow_rounds", "workflow_deltas", "message_vectors", "entities", "entity_ops", "object_attributes", "memory_entities", "entity_names", "sessions", "session_states", "object_classes"}

// Row-level security keeps each tenant's rows to transactions that name
// it: the role the store's queries run as sees nothing without a tenant,
// none of acme's rows as globex, and cannot write a row of another tenant
// than its transaction's. Every tenant table has the policy.
func TestRowLevelSecurity(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	s := open(t, u, postgres.Options{})
	acme := tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted}
	globex := tenure.Principal{UserID: "oz", TenantID: "globex", Authority: "policy", Clearance: tenure.HighlyRestricted}
	for _, p := range []tenure.Principal{acme, globex} {
		if _, err := s.Put(ctx, p, tenure.Object{Key: "office.city", Content: "Berlin", DependsOn: []string{"company.hq"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AppendMessages(ctx, p, []tenure.Message{{ThreadID: "t1", ID: "m1", Role: "user", Content: "we moved to Berlin",
			CreatedAt: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.CreateKey(ctx, tenure.APIKey{Name: "k", Principal: p}); err != nil {
			t.Fatal(err)
		}
	}

	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var policies int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_policies WHERE schemaname = current_schema() AND tablename = ANY($1)`,
		tenantTables).Scan(&policies); err != nil || policies != len(tenantTables) {
		t.Fatalf("%d policies on the %d tenant tables (%v)", policies, len(tenantTables), err)
	}
	var unprotected []string
	rows, err := admin.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id'
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND NOT (c.relrowsecurity AND c.relforcerowsecurity)`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		unprotected = append(unprotected, n)
	}
	rows.Close()
	if len(unprotected) > 0 {
		t.Errorf("tables with tenant_id but no forced row-level security: %v", unprotected)
	}
	var super, bypass bool
	var owns int
	if err := admin.QueryRow(ctx, `SELECT rolsuper, rolbypassrls, (SELECT count(*) FROM pg_tables WHERE tableowner = $1)
		FROM pg_roles WHERE rolname = $1`, postgres.Role).Scan(&super, &bypass, &owns); err != nil || super || bypass || owns > 0 {
		t.Fatalf("%s: superuser %v, bypassrls %v, owns %d tables (%v)", postgres.Role, super, bypass, owns, err)
	}
	acmeRows := map[string]int{}
	for _, tbl := range tenantTables {
		var n int
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM `+tbl+` WHERE tenant_id = 'acme'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		acmeRows[tbl] = n
	}
	for _, tbl := range []string{"objects", "object_deps", "messages", "fts_stats", "api_keys"} {
		if acmeRows[tbl] == 0 {
			t.Fatalf("no acme rows in %s to hide", tbl)
		}
	}

	// count runs fn's query as the application role in a transaction that
	// names tenant (none when empty).
	count := func(t *testing.T, tenant, query string) int {
		t.Helper()
		tx, err := admin.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `SET LOCAL ROLE `+postgres.Role); err != nil {
			t.Fatal(err)
		}
		if tenant != "" {
			if _, err := tx.Exec(ctx, `SELECT set_config('tenure.tenant', $1, true)`, tenant); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := tx.QueryRow(ctx, query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	for _, tbl := range tenantTables {
		t.Run(tbl, func(t *testing.T) {
			if n := count(t, "", `SELECT count(*) FROM `+tbl); n != 0 {
				t.Errorf("no tenant set: %d rows of %s visible, want 0", n, tbl)
			}
			if n := count(t, "globex", `SELECT count(*) FROM `+tbl+` WHERE tenant_id = 'acme'`); n != 0 {
				t.Errorf("as globex: %d of acme's rows of %s visible, want 0", n, tbl)
			}
			if n := count(t, "acme", `SELECT count(*) FROM `+tbl+` WHERE tenant_id = 'acme'`); n != acmeRows[tbl] {
				t.Errorf("as acme: %d of acme's rows of %s visible, want %d", n, tbl, acmeRows[tbl])
			}
		})
	}
	t.Run("WriteOtherTenant", func(t *testing.T) {
		tx, err := admin.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		tx.Exec(ctx, `SET LOCAL ROLE `+postgres.Role)
		tx.Exec(ctx, `SELECT set_config('tenure.tenant', 'globex', true)`)
		_, err = tx.Exec(ctx, `INSERT INTO watermarks (tenant_id, thread_id, channel, last_created_at, last_message_id, updated_at)
			VALUES ('acme', 't1', 'state', 0, 'm1', 0)`)
		if err == nil || !strings.Contains(err.Error(), "row-level security") {
			t.Errorf("insert of an acme row as globex: %v, want a row-level security violation", err)
		}
	})
}
