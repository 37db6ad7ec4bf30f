package eval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
)

// bareBase makes the bare side's databases: SQLite files, or PostgreSQL
// schemas.
type bareBase interface {
	// create makes an empty bare database; name tells them apart.
	create(ctx context.Context, name string) (bareDB, error)
}

// bareDB is one bare database, open for writing.
type bareDB interface {
	// insert writes msgs in one transaction, with their full-text rows
	// when search is set (PostgreSQL indexes them always).
	insert(ctx context.Context, msgs []tenure.Message, search bool) error
	// close releases the writing connection; the rows stay.
	close() error
	// where names the database for BenchOptions.Bare: a path or a URL.
	where() string
	// drop removes the database (after close).
	drop() error
}

// sqliteBare makes bare SQLite files in a directory (removed with it).
type sqliteBare string

type sqliteBareDB struct {
	db   *sql.DB
	path string
}

func (dir sqliteBare) create(ctx context.Context, name string) (bareDB, error) {
	path := filepath.Join(string(dir), name+".db")
	db, err := openBare(ctx, path)
	if err != nil {
		return nil, err
	}
	return &sqliteBareDB{db: db, path: path}, nil
}

func (b *sqliteBareDB) insert(ctx context.Context, msgs []tenure.Message, search bool) error {
	return bareInsert(ctx, b.db, msgs, search)
}
func (b *sqliteBareDB) close() error  { return b.db.Close() }
func (b *sqliteBareDB) where() string { return b.path }
func (b *sqliteBareDB) drop() error   { return nil }

func openBare(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS messages (thread_id TEXT, id TEXT, role TEXT, speaker TEXT, content TEXT, created_at INTEGER);
		CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5 (speaker, text, tokenize = 'porter unicode61 remove_diacritics 2')`)
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// bareInsert inserts msgs into a plain table in one transaction, one
// prepared statement per row.
func bareInsert(ctx context.Context, db *sql.DB, msgs []tenure.Message, withFTS bool) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	fts, err := tx.PrepareContext(ctx, `INSERT INTO messages_fts (rowid, speaker, text) VALUES (last_insert_rowid(), ?, ?)`)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if _, err := ins.ExecContext(ctx, m.ThreadID, m.ID, m.Role, m.Speaker, m.Content, m.CreatedAt.UnixNano()); err != nil {
			return err
		}
		if withFTS {
			if _, err := fts.ExecContext(ctx, m.Speaker, m.Text()); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// postgresBare makes bare PostgreSQL databases: a scratch schema each,
// holding one plain table whose tsvector (speaker weighted B, text A, as
// the store's) is computed as rows are written and indexed with GIN, and
// a B-tree on the thread, so that the planner can read one thread's rows
// instead of every match in the store (without it the bare query grows
// with the store and flatters the comparison).
type postgresBare func(ctx context.Context, name string) (string, func() error, error)

type postgresBareDB struct {
	c       *pgx.Conn
	url     string
	dropped func() error
}

const barePostgresTable = `CREATE TABLE messages (thread_id text NOT NULL, id text NOT NULL, role text NOT NULL, speaker text NOT NULL,
	content text NOT NULL, created_at bigint NOT NULL,
	tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english', speaker), 'B') || setweight(to_tsvector('english', content), 'A')) STORED);
	CREATE INDEX messages_tsv ON messages USING gin (tsv);
	CREATE INDEX messages_thread ON messages (thread_id)`

func (scratch postgresBare) create(ctx context.Context, name string) (bareDB, error) {
	u, drop, err := scratch(ctx, name)
	if err != nil {
		return nil, err
	}
	c, err := pgx.Connect(ctx, u)
	if err == nil {
		if _, err = c.Exec(ctx, barePostgresTable); err != nil {
			c.Close(ctx)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("bare table: %w", errors.Join(err, drop()))
	}
	return &postgresBareDB{c: c, url: u, dropped: drop}, nil
}

// insert copies msgs into the table (COPY, one statement), then has the
// planner's statistics brought up to date.
func (b *postgresBareDB) insert(ctx context.Context, msgs []tenure.Message, _ bool) error {
	_, err := b.c.CopyFrom(ctx, pgx.Identifier{"messages"}, []string{"thread_id", "id", "role", "speaker", "content", "created_at"},
		pgx.CopyFromSlice(len(msgs), func(i int) ([]any, error) {
			m := &msgs[i]
			return []any{m.ThreadID, m.ID, m.Role, m.Speaker, m.Text(), m.CreatedAt.UnixNano()}, nil
		}))
	return err
}

func (b *postgresBareDB) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, err := b.c.Exec(ctx, `ANALYZE messages`)
	return errors.Join(err, b.c.Close(ctx))
}
func (b *postgresBareDB) where() string { return b.url }
func (b *postgresBareDB) drop() error   { return b.dropped() }

// barePool runs the bare PostgreSQL query on a connection pool of its
// own.
type barePool struct{ pool *pgxpool.Pool }

// BarePostgres opens the bare PostgreSQL database at url (a schema of
// postgresBare's) on a pool of its own, of one connection.
func BarePostgres(ctx context.Context, url string) (BareQuerier, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &barePool{pool: pool}, nil
}

// Query ranks the messages of thread that match any of q's content words
// by ts_rank and reads the ten best.
func (b *barePool) Query(ctx context.Context, thread, q string) (time.Duration, error) {
	var words []string
	for _, w := range retrieve.ContentWords(q) {
		words = append(words, `'`+strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(w)+`'`)
	}
	if len(words) == 0 {
		return 0, nil
	}
	start := time.Now()
	rows, err := b.pool.Query(ctx, `SELECT m.id, ts_rank(m.tsv, q) AS rank FROM messages m, to_tsquery('english', $1) q
		WHERE m.thread_id = $2 AND m.tsv @@ q ORDER BY rank DESC LIMIT 10`, strings.Join(words, " | "), thread)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var score float32
		if err := rows.Scan(&id, &score); err != nil {
			return 0, err
		}
	}
	return time.Since(start), rows.Err()
}

func (b *barePool) Close() error {
	b.pool.Close()
	return nil
}
