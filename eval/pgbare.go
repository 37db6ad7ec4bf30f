package eval

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
)

// pgBare is the PostgreSQL baseline: the rows COPYed into a plain table,
// and for full-text search a tsvector column (speaker weighted B, text A,
// as Tenure's) with a GIN index, queried for the ten best by ts_rank.
type pgBare struct {
	c       *pgx.Conn
	release func() error
}

// PostgresBare opens PostgreSQL baselines: connect returns a connection
// to an empty schema of its own and what drops it.
func PostgresBare(connect func(ctx context.Context, name string) (*pgx.Conn, func() error, error)) BareOpener {
	return func(ctx context.Context, name string) (Bare, error) {
		c, release, err := connect(ctx, name)
		if err != nil {
			return nil, err
		}
		if _, err := c.Exec(ctx, `CREATE TABLE messages (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, thread_id TEXT, id TEXT,
			role TEXT, speaker TEXT, content TEXT, created_at BIGINT)`); err != nil {
			c.Close(context.Background())
			return nil, errJoin(err, release())
		}
		return &pgBare{c: c, release: release}, nil
	}
}

func errJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (b *pgBare) Insert(ctx context.Context, msgs []tenure.Message, withFTS bool) error {
	if withFTS {
		if _, err := b.c.Exec(ctx, `ALTER TABLE messages ADD COLUMN tsv tsvector GENERATED ALWAYS AS
			(setweight(to_tsvector('english', speaker), 'B') || setweight(to_tsvector('english', content), 'A')) STORED;
			CREATE INDEX messages_fts ON messages USING gin (tsv)`); err != nil {
			return err
		}
	}
	rows := make([][]any, len(msgs))
	for i, m := range msgs {
		rows[i] = []any{m.ThreadID, m.ID, m.Role, m.Speaker, m.Text(), m.CreatedAt.UnixNano()}
	}
	_, err := b.c.CopyFrom(ctx, pgx.Identifier{"messages"}, []string{"thread_id", "id", "role", "speaker", "content", "created_at"},
		pgx.CopyFromRows(rows))
	return err
}

func (b *pgBare) Top10(ctx context.Context, words []string) error {
	if len(words) == 0 {
		return nil
	}
	rows, err := b.c.Query(ctx, `SELECT seq, ts_rank(tsv, q) AS r FROM messages, websearch_to_tsquery('english', $1) q
		WHERE tsv @@ q ORDER BY r DESC LIMIT 10`, strings.Join(words, " or "))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var score float32
		if err := rows.Scan(&id, &score); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (b *pgBare) Close() error {
	b.c.Close(context.Background())
	return b.release()
}
