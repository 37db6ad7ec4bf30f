// Package storecopy moves a SQLite store's database into a PostgreSQL
// store's (tenure migrate --from FILE --to postgres://…): every table, with
// its row ids, history and transaction times as they are, in batches that
// each commit, so that a copy cut short resumes where it stopped and a
// copy run twice changes nothing. Counts and per-table checksums over the
// copied columns, computed the same way on both sides, verify it.
package storecopy

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/postgres"
)

// table says how one table is copied: the source query (ordered by key,
// its columns in the order of cols), the target's columns and key, which
// columns are booleans stored as integers in SQLite and which hold JSON,
// and the PostgreSQL identity column whose sequence follows the copy.
type table struct {
	name     string
	source   string
	cols     []string
	key      []string
	bools    map[string]bool
	jsonb    map[string]bool
	identity string
	// derive adds target-only columns computed from a row (objects'
	// search text).
	derive     func(row []any) ([]any, error)
	deriveCols []string
}

var tables = []table{
	{name: "objects", source: `SELECT seq, tenant_id, object_id, version, key, layer, object_type, scope, status, session_id, user_id,
		project_id, task_id, sandbox_id, class_rank, always, valid_from, valid_until, has_decay, tx_start, tx_end, body, memory_rank FROM objects ORDER BY seq`,
		cols: []string{"seq", "tenant_id", "object_id", "version", "key", "layer", "object_type", "scope", "status", "session_id", "user_id",
			"project_id", "task_id", "sandbox_id", "class_rank", "always", "valid_from", "valid_until", "has_decay", "tx_start", "tx_end", "body", "memory_rank"},
		key: []string{"seq"}, bools: set("always", "has_decay"), identity: "seq",
		deriveCols: []string{"search"},
		derive: func(row []any) ([]any, error) {
			var o tenure.Object
			body, _ := row[21].(string)
			if err := json.Unmarshal([]byte(body), &o); err != nil {
				return nil, fmt.Errorf("object row %v: %w", row[0], err)
			}
			return []any{strings.ReplaceAll(o.SearchText(), "\x00", "")}, nil
		}},
	{name: "object_deps", source: `SELECT tenant_id, ref, object_id FROM object_deps ORDER BY tenant_id, ref, object_id`,
		cols: []string{"tenant_id", "ref", "object_id"}, key: []string{"tenant_id", "ref", "object_id"}},
	{name: "tombstones", source: `SELECT tenant_id, object_id, key, versions, deleted_at, deleted_by, reason, audience FROM tombstones ORDER BY tenant_id, object_id`,
		cols: []string{"tenant_id", "object_id", "key", "versions", "deleted_at", "deleted_by", "reason", "audience"}, key: []string{"tenant_id", "object_id"}},
	{name: "resolutions", source: `SELECT id, tenant_id, kind, key, slot, object_ids, reason, created_at, resolved_at, resolved_by FROM resolutions ORDER BY id`,
		cols: []string{"id", "tenant_id", "kind", "key", "slot", "object_ids", "reason", "created_at", "resolved_at", "resolved_by"},
		key:  []string{"id"}, jsonb: set("object_ids")},
	{name: "messages", source: `SELECT seq, tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content, attachments, dates,
		created_at, tokens, search_text, search_dates, persona_id FROM messages ORDER BY seq`,
		cols: []string{"seq", "tenant_id", "thread_id", "id", "pos", "session_id", "user_id", "project_id", "role", "speaker", "content",
			"attachments", "dates", "created_at", "tokens", "search_text", "search_dates", "persona_id"}, key: []string{"seq"}, identity: "seq"},
	{name: "watermarks", source: `SELECT tenant_id, thread_id, channel, last_created_at, last_message_id, updated_at FROM watermarks
		ORDER BY tenant_id, thread_id, channel`,
		cols: []string{"tenant_id", "thread_id", "channel", "last_created_at", "last_message_id", "updated_at"}, key: []string{"tenant_id", "thread_id", "channel"}},
	{name: "api_keys", source: `SELECT id, hash, name, tenant_id, principal, created_at, revoked_at FROM api_keys ORDER BY id`,
		cols: []string{"id", "hash", "name", "tenant_id", "principal", "created_at", "revoked_at"}, key: []string{"id"}},
	{name: "workflows", source: `SELECT seq, uid, tenant_id, workflow_id, config, open_round, converged, created_at, updated_at FROM workflows ORDER BY seq`,
		cols: []string{"seq", "uid", "tenant_id", "workflow_id", "config", "open_round", "converged", "created_at", "updated_at"},
		key:  []string{"seq"}, bools: set("converged"), identity: "seq"},
	{name: "workflow_rounds", source: `SELECT w.tenant_id, r.workflow_seq, r.round, r.state, r.report, r.closed_at FROM workflow_rounds r
		JOIN workflows w ON w.seq = r.workflow_seq ORDER BY r.workflow_seq, r.round`,
		cols: []string{"tenant_id", "workflow_seq", "round", "state", "report", "closed_at"}, key: []string{"workflow_seq", "round"}},
	{name: "workflow_deltas", source: `SELECT d.seq, w.tenant_id, d.workflow_seq, d.round, d.id, d.body, d.status, d.reason FROM workflow_deltas d
		JOIN workflows w ON w.seq = d.workflow_seq ORDER BY d.seq`,
		cols: []string{"seq", "tenant_id", "workflow_seq", "round", "id", "body", "status", "reason"}, key: []string{"seq"}, identity: "seq"},
	{name: "entities", source: `SELECT seq, tenant_id, registry, entity_id, version, type, status, tx_start, tx_end, body FROM entities ORDER BY seq`,
		cols: []string{"seq", "tenant_id", "registry", "entity_id", "version", "type", "status", "tx_start", "tx_end", "body"},
		key:  []string{"seq"}, identity: "seq"},
	{name: "entity_ops", source: `SELECT id, tenant_id, registry, from_id, into_id, at, undone_at, body FROM entity_ops ORDER BY id`,
		cols: []string{"id", "tenant_id", "registry", "from_id", "into_id", "at", "undone_at", "body"}, key: []string{"id"}},
	{name: "object_attributes", source: `SELECT tenant_id, attribute, mention, object_id FROM object_attributes
		ORDER BY tenant_id, attribute, mention, object_id`,
		cols: []string{"tenant_id", "attribute", "mention", "object_id"}, key: []string{"tenant_id", "attribute", "mention", "object_id"}},
	{name: "entity_names", source: `SELECT tenant_id, registry, slug, entity_id FROM entity_names ORDER BY tenant_id, registry, slug, entity_id`,
		cols: []string{"tenant_id", "registry", "slug", "entity_id"}, key: []string{"tenant_id", "registry", "slug", "entity_id"}},
	{name: "memory_entities", source: `SELECT tenant_id, entity_ref, object_id FROM memory_entities ORDER BY tenant_id, entity_ref, object_id`,
		cols: []string{"tenant_id", "entity_ref", "object_id"}, key: []string{"tenant_id", "entity_ref", "object_id"}},
	{name: "embeddings", source: `SELECT id, model, hash, dims, vector FROM embeddings ORDER BY id`,
		cols: []string{"id", "model", "hash", "dims", "vector"}, key: []string{"id"}, identity: "id"},
	{name: "message_vectors", source: `SELECT m.tenant_id, v.seq, v.model, v.embedding FROM message_vectors v JOIN messages m ON m.seq = v.seq
		ORDER BY v.seq, v.model`,
		cols: []string{"tenant_id", "seq", "model", "embedding"}, key: []string{"seq", "model"}},
	{name: "sessions", source: `SELECT tenant_id, user_id, persona_id, thread_id, session_id, started_at, last_activity_at, ended_at,
		turn_count, summary_key FROM sessions ORDER BY tenant_id, user_id, persona_id, thread_id, session_id`,
		cols: []string{"tenant_id", "user_id", "persona_id", "thread_id", "session_id", "started_at", "last_activity_at", "ended_at",
			"turn_count", "summary_key"}, key: []string{"tenant_id", "user_id", "persona_id", "thread_id", "session_id"}},
	{name: "session_states", source: `SELECT tenant_id, user_id, persona_id, message_count, last_interaction, last_user_message, diagnostics
		FROM session_states ORDER BY tenant_id, user_id, persona_id`,
		cols: []string{"tenant_id", "user_id", "persona_id", "message_count", "last_interaction", "last_user_message", "diagnostics"},
		key:  []string{"tenant_id", "user_id", "persona_id"}},
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Result is what the copy of one table did and found.
type Result struct {
	Table string `json:"table"`
	// Source and Target count the rows on each side after the copy;
	// Written the rows this run inserted or updated.
	Source  int `json:"source_rows"`
	Target  int `json:"target_rows"`
	Written int `json:"written"`
	// SourceSum and TargetSum are checksums of the copied columns of
	// every row on each side: the XOR of each row's SHA-256, so that
	// neither side's order (or collation) matters.
	SourceSum string `json:"source_checksum"`
	TargetSum string `json:"target_checksum"`
}

// OK reports whether both sides hold the same rows.
func (r Result) OK() bool { return r.Source == r.Target && r.SourceSum == r.TargetSum }

// batch is how many rows one statement (and transaction) copies.
const batch = 500

// Copy copies every table of the SQLite database src into the PostgreSQL
// database dst (migrated already, see postgres.Migrate), as dst's role,
// which must be allowed to write every tenant's rows (the tables' owner:
// the copy names itself the system for row-level security) and to move
// sequences. A row whose key is present is overwritten with the source's,
// so a second run, or one after an interrupted run, leaves one copy of
// every row. progress, when set, is called after each batch.
func Copy(ctx context.Context, src *sql.DB, dst *pgx.Conn, progress func(table string, rows int)) ([]Result, error) {
	var out []Result
	for _, t := range tables {
		r, err := copyTable(ctx, src, dst, t, progress)
		if err != nil {
			return out, fmt.Errorf("copy %s: %w", t.name, err)
		}
		out = append(out, r)
	}
	// The ranking statistics follow the copied rows.
	if err := postgres.RecountStatistics(ctx, dst); err != nil {
		return out, fmt.Errorf("copy: %w", err)
	}
	return out, nil
}

// exec runs sql in a transaction that reads and writes every tenant's rows.
func exec(ctx context.Context, dst *pgx.Conn, sql string, args ...any) (int64, error) {
	tx, err := dst.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT set_config('tenure.system', 'on', true)`); err != nil {
		return 0, err
	}
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), tx.Commit(ctx)
}

func copyTable(ctx context.Context, src *sql.DB, dst *pgx.Conn, t table, progress func(string, int)) (Result, error) {
	res := Result{Table: t.name}
	rows, err := src.QueryContext(ctx, t.source)
	if err != nil {
		return res, err
	}
	defer rows.Close()
	allCols := append(append([]string(nil), t.cols...), t.deriveCols...)
	var srcSum sum
	var pending [][]any
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		n, err := exec(ctx, dst, upsert(t, allCols, len(pending)), flatten(pending)...)
		if err != nil {
			return err
		}
		res.Written += int(n)
		pending = pending[:0]
		if progress != nil {
			progress(t.name, res.Source)
		}
		return nil
	}
	for rows.Next() {
		vals := make([]any, len(t.cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return res, err
		}
		for i, c := range t.cols {
			if t.bools[c] {
				vals[i] = toInt(vals[i]) != 0
			}
			if b, ok := vals[i].([]byte); ok && c != "hash" && c != "vector" {
				vals[i] = string(b)
			}
		}
		res.Source++
		srcSum.add(t, vals)
		if t.derive != nil {
			extra, err := t.derive(vals)
			if err != nil {
				return res, err
			}
			vals = append(vals, extra...)
		}
		pending = append(pending, vals)
		if len(pending) == batch {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return res, err
	}
	if err := flush(); err != nil {
		return res, err
	}
	if t.identity != "" {
		if _, err := exec(ctx, dst, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', '%s'), coalesce(max(%s), 0) + 1, false) FROM %s`,
			t.name, t.identity, t.identity, t.name)); err != nil {
			return res, err
		}
	}
	res.SourceSum = srcSum.String()
	res.Target, res.TargetSum, err = targetSum(ctx, dst, t)
	return res, err
}

// upsert is the statement that writes n rows of t.
func upsert(t table, cols []string, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + t.name + " (" + strings.Join(cols, ", ") + ")")
	if t.identity != "" {
		b.WriteString(" OVERRIDING SYSTEM VALUE")
	}
	b.WriteString(" VALUES ")
	p := 0
	for r := range n {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i, c := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			p++
			b.WriteString("$" + strconv.Itoa(p))
			if t.jsonb[c] {
				b.WriteString("::text::jsonb")
			}
		}
		b.WriteByte(')')
	}
	var sets, mine, theirs []string
	for _, c := range cols {
		if !slices.Contains(t.key, c) {
			sets = append(sets, c+" = excluded."+c)
			mine, theirs = append(mine, t.name+"."+c), append(theirs, "excluded."+c)
		}
	}
	if len(sets) == 0 {
		b.WriteString(" ON CONFLICT DO NOTHING")
		return b.String()
	}
	b.WriteString(" ON CONFLICT (" + strings.Join(t.key, ", ") + ") DO UPDATE SET " + strings.Join(sets, ", "))
	// Unchanged rows are not rewritten; columns the copy does not write
	// (objects' audience class, kept by the target) are not compared.
	b.WriteString(" WHERE (" + strings.Join(mine, ", ") + ") IS DISTINCT FROM (" + strings.Join(theirs, ", ") + ")")
	return b.String()
}

func flatten(rows [][]any) []any {
	var out []any
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// sum is an order-independent checksum of rows.
type sum [sha256.Size]byte

// add adds a row's copied columns, in a form both databases' values take
// alike.
func (s *sum) add(t table, vals []any) {
	h := sha256.New()
	for i, c := range t.cols {
		v := vals[i]
		var s string
		switch x := v.(type) {
		case nil:
			s = "\\N"
		case bool:
			s = strconv.FormatInt(toInt(x), 10)
		case int64:
			s = strconv.FormatInt(x, 10)
		case int32:
			s = strconv.FormatInt(int64(x), 10)
		case int:
			s = strconv.Itoa(x)
		case []byte:
			s = hex.EncodeToString(x)
		case string:
			s = x
			if t.jsonb[c] {
				var j any
				if json.Unmarshal([]byte(x), &j) == nil {
					b, _ := json.Marshal(j)
					s = string(b)
				}
			}
		default:
			s = fmt.Sprint(x)
		}
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for i, b := range h.Sum(nil) {
		s[i] ^= b
	}
}

func (s *sum) String() string { return hex.EncodeToString(s[:]) }

// targetSum counts and checksums t's rows in PostgreSQL.
func targetSum(ctx context.Context, dst *pgx.Conn, t table) (int, string, error) {
	tx, err := dst.Begin(ctx)
	if err != nil {
		return 0, "", err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT set_config('tenure.system', 'on', true)`); err != nil {
		return 0, "", err
	}
	cols := make([]string, len(t.cols))
	for i, c := range t.cols {
		cols[i] = c
		if t.jsonb[c] {
			cols[i] = c + "::text"
		}
	}
	rows, err := tx.Query(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+t.name)
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	var h sum
	n := 0
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return 0, "", err
		}
		h.add(t, vals)
		n++
	}
	return n, h.String(), rows.Err()
}
