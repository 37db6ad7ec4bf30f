package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/postgres"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/storecopy"
)

var migrateSpec = commandSpec{
	name:    "migrate",
	summary: "apply the schema migrations, or copy a SQLite database into PostgreSQL",

	detail: `Apply the embedded schema migrations to the PostgreSQL database --db names
(stores migrate themselves when they open; run this as the tables' owner
when the servers connect as a role that may not create tables), or, with
--from and --to, copy everything in the SQLite database --from into the
PostgreSQL database --to: objects with their whole history and transaction
times, tombstones, resolutions, messages, watermarks, API keys, workflows
and vectors, with their ids. The copy is idempotent and resumable: a row
present is overwritten with the source's, so running it again (after an
interruption, or to pick up writes made since) leaves one copy of each
row. It prints each table's rows on both sides and a checksum of each, and
fails when they differ. Stop the servers writing to --from first.
Example: tenure migrate --from tenure.db --to postgres://tenure@db/tenure`,
	new: func() subcommand { return new(migrateCmd) },
}

type migrateCmd struct {
	db, from, to string
	json         bool
}

func (c *migrateCmd) define(fs *flag.FlagSet) {
	fs.StringVar(&c.db, "db", defaultDBPath(), "PostgreSQL `URL` to migrate ($TENURE_DB sets the default)")
	fs.StringVar(&c.from, "from", "", "copy from this SQLite database `file`")
	fs.StringVar(&c.to, "to", "", "copy into the PostgreSQL database at `URL`")
	fs.BoolVar(&c.json, "json", false, "print JSON")
}

func (c *migrateCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(migrateSpec, args, 0); err != nil {
		return err
	}
	if c.from == "" && c.to == "" {
		if !postgres.IsURL(c.db) {
			return tenure.Errorf(tenure.CodeInvalid, "--db", "%q is not a PostgreSQL URL: SQLite files migrate when they open", c.db)
		}
		if err := postgres.Migrate(ctx, c.db, time.Now()); err != nil {
			return err
		}
		applied, latest, err := postgres.Version(ctx, c.db)
		if err != nil {
			return err
		}
		if c.json {
			return writeJSON(sio.out, map[string]int{"applied": applied, "latest": latest})
		}
		_, err = fmt.Fprintf(sio.out, "%s: schema version %d (latest %d)\n", dbName(c.db), applied, latest)
		return err
	}
	if c.from == "" || c.to == "" {
		return tenure.Errorf(tenure.CodeInvalid, "--from", "--from and --to go together")
	}
	if !postgres.IsURL(c.to) {
		return tenure.Errorf(tenure.CodeInvalid, "--to", "%q is not a PostgreSQL URL (postgres://…)", c.to)
	}
	if postgres.IsURL(c.from) {
		return tenure.Errorf(tenure.CodeInvalid, "--from", "%q is not a SQLite database file", c.from)
	}
	src := sqlite.New(c.from, sqlite.Options{})
	if err := src.Open(ctx); err != nil {
		return err
	}
	defer src.Close()
	if err := postgres.Migrate(ctx, c.to, time.Now()); err != nil {
		return err
	}
	dst, err := pgx.Connect(ctx, c.to)
	if err != nil {
		return &tenure.Error{Code: tenure.CodeUnavailable, Field: "--to", Message: "cannot connect to " + dbName(c.to), Err: err}
	}
	defer dst.Close(context.Background())
	res, err := storecopy.Copy(ctx, src.DB(), dst, nil)
	if err != nil {
		return err
	}
	bad := 0
	for _, r := range res {
		if !r.OK() {
			bad++
		}
	}
	if c.json {
		err = writeJSON(sio.out, res)
	} else {
		tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "table\tsource\ttarget\twritten\tchecksum\t")
		for _, r := range res {
			sum := r.SourceSum[:16]
			if !r.OK() {
				sum = "MISMATCH source " + r.SourceSum[:16] + " target " + r.TargetSum[:16]
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t\n", r.Table, r.Source, r.Target, r.Written, sum)
		}
		err = tw.Flush()
	}
	if err != nil {
		return err
	}
	if bad > 0 {
		return &tenure.Error{Code: tenure.CodeInternal, Message: fmt.Sprintf("%d tables differ after the copy", bad)}
	}
	return nil
}
