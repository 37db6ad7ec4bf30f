package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tenure-dev/tenure"
)

var keysSpec = commandSpec{
	name:    "keys",
	args:    "create|list|revoke",
	summary: "manage the API keys of 'tenure serve': create, list, revoke",
	detail: `keys works on the local database (--db) that 'tenure serve' uses.

create makes a key for a principal and prints its secret (tk_...) once on
stdout, and what it is on stderr, so that KEY=$(tenure keys create ...)
works; only the secret's SHA-256 is stored. The principal starts from the
store's defaults (tenant "default", the lowest authority, clearance public)
and takes --principal FILE and the principal flags: a key never gets more
than it is given. Every request made with the key runs as that principal.
list shows the keys (never their secrets); revoke ID refuses every later
request made with the key.`,
	new: func() subcommand { return new(keysCmd) },
}

type keysCmd struct {
	principalFlags
	db                        string
	json, guest               bool
	name                      string
	userName, org, department string
}

func (c *keysCmd) define(fs *flag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.db, "db", defaultDBPath(), "database `file` ($TENURE_DB sets the default)")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	fs.StringVar(&c.name, "name", "", "create: a `label` for the key")
	fs.StringVar(&c.principalFile, "principal", "", "create: the key's principal as a JSON `file`")
	fs.StringVar(&c.tenant, "tenant", "", "create: the principal's tenant `id`; list: only this tenant's keys")
	fs.StringVar(&c.user, "user", "", "create: the principal's user `id` (required, unless --guest)")
	fs.BoolVar(&c.guest, "guest", false, "create: a key that acts as no user (reads only what every user of the tenant may read)")
	fs.StringVar(&c.authority, "authority", "", "create: the principal's `rank` ("+strings.Join(tenure.DefaultHierarchy.Ranks, ", ")+")")
	fs.StringVar(&c.clearance, "clearance", "", "create: the principal's clearance `level` ("+joinVocab(tenure.Classifications)+")")
	fs.StringVar(&c.roles, "roles", "", "create: the principal's `roles`, comma-separated")
	fs.StringVar(&c.permissions, "permissions", "", "create: the principal's `permissions`, comma-separated")
	fs.StringVar(&c.userName, "user-name", "", "create: the principal's display `name`")
	fs.StringVar(&c.org, "organization", "", "create: the principal's `organization`")
	fs.StringVar(&c.department, "department", "", "create: the principal's `department`")
	fs.StringVar(&c.persona, "persona", "", "create: bind the key to a `persona`: it reads that persona's memories, commitments and messages and the global ones, and acts as no other")
}

// principal builds the new key's principal from the store's defaults, the
// principal file and the flags.
func (c *keysCmd) principal() (tenure.Principal, error) {
	p, err := c.overlayPrincipal(tenure.Principal{}, func(name string, p *tenure.Principal) {
		switch name {
		case "user-name":
			p.UserName = c.userName
		case "organization":
			p.Organization = c.org
		case "department":
			p.Department = c.department
		}
	})
	if err != nil {
		return p, err
	}
	switch {
	case p.UserID == "" && !c.guest:
		return p, tenure.Errorf(tenure.CodeInvalid, "--user", "required: a key acts as one user (or pass --guest for a key that acts as no user)")
	case p.UserID != "" && c.guest:
		return p, tenure.Errorf(tenure.CodeInvalid, "--guest", "a guest key has no user: leave out --user (or the principal file's user_id)")
	}
	p = p.WithDefaults(tenure.DefaultHierarchy)
	if err := p.Validate(tenure.DefaultHierarchy); err != nil {
		return p, fmt.Errorf("principal: %w", prefixField("principal.", err))
	}
	return p, nil
}

// createdKey is the JSON output of keys create.
type createdKey struct {
	Key    tenure.APIKey `json:"key"`
	Secret string        `json:"secret"`
}

func (c *keysCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if len(args) == 0 {
		return tenure.Errorf(tenure.CodeInvalid, "", "usage: tenure keys [flags] create | list | revoke ID")
	}
	action, rest := args[0], args[1:]
	var createOnly []string
	c.fs.Visit(func(f *flag.Flag) {
		if f.Name != "db" && f.Name != "json" && (f.Name != "tenant" || action != "list") {
			createOnly = append(createOnly, f.Name)
		}
	})
	if action != "create" && len(createOnly) > 0 {
		return tenure.Errorf(tenure.CodeInvalid, "--"+createOnly[0], "applies to keys create only")
	}
	switch action {
	case "create":
		if len(rest) != 0 {
			return tenure.Errorf(tenure.CodeInvalid, "", "keys create takes no arguments, got %q", rest)
		}
		p, err := c.principal()
		if err != nil {
			return err
		}
		return c.withStore(ctx, func(st *dbStore) error {
			k, secret, err := st.CreateKey(ctx, tenure.APIKey{Name: c.name, Principal: p})
			if err != nil {
				return err
			}
			if c.json {
				return writeJSON(sio.out, createdKey{Key: k, Secret: secret})
			}
			fmt.Fprintf(sio.err, "created %s: %s (shown only now; store it)\n", k.ID, describeKey(k))
			_, err = fmt.Fprintln(sio.out, secret)
			return err
		})
	case "list":
		if len(rest) != 0 {
			return tenure.Errorf(tenure.CodeInvalid, "", "keys list takes no arguments, got %q", rest)
		}
		return c.withStore(ctx, func(st *dbStore) error {
			keys, err := st.Keys(ctx, c.tenant)
			if err != nil {
				return err
			}
			if c.json {
				return writeJSON(sio.out, keys)
			}
			return printKeys(sio.out, keys)
		})
	case "revoke":
		if len(rest) != 1 {
			return tenure.Errorf(tenure.CodeInvalid, "", "usage: tenure keys revoke [flags] ID")
		}
		return c.withStore(ctx, func(st *dbStore) error {
			k, err := st.RevokeKey(ctx, rest[0])
			if err != nil {
				return err
			}
			if c.json {
				return writeJSON(sio.out, k)
			}
			_, err = fmt.Fprintf(sio.out, "revoked %s at %s: %s\n", k.ID, stamp(*k.RevokedAt), describeKey(k))
			return err
		})
	}
	return tenure.Errorf(tenure.CodeInvalid, "", "keys: unknown action %q (want create, list or revoke)", action)
}

// withStore opens the database, runs fn and closes it.
func (c *keysCmd) withStore(ctx context.Context, fn func(*dbStore) error) error {
	return withDB(ctx, c.db, fn)
}

// describeKey summarizes a key's principal on one line.
func describeKey(k tenure.APIKey) string {
	p := k.Principal
	s := fmt.Sprintf("user %q of tenant %q, authority %s, clearance %s", p.UserID, p.TenantID, p.Authority, p.Clearance)
	if len(p.Roles) > 0 {
		s += ", roles " + strings.Join(p.Roles, ",")
	}
	if len(p.Permissions) > 0 {
		s += ", permissions " + strings.Join(p.Permissions, ",")
	}
	if k.Name != "" {
		s = k.Name + ": " + s
	}
	return s
}

// printKeys prints the keys as a table.
func printKeys(w io.Writer, keys []tenure.APIKey) error {
	var b bytes.Buffer
	if len(keys) == 0 {
		b.WriteString("no API keys\n")
	} else {
		t := newTable(&b)
		fmt.Fprintln(t, "ID\tNAME\tTENANT\tUSER\tAUTHORITY\tCLEARANCE\tROLES\tPERMISSIONS\tCREATED\tREVOKED")
		for _, k := range keys {
			p := k.Principal
			revoked := "-"
			if k.RevokedAt != nil {
				revoked = stamp(*k.RevokedAt)
			}
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, p.TenantID, p.UserID, p.Authority, p.Clearance,
				strings.Join(p.Roles, ","), strings.Join(p.Permissions, ","), stamp(k.CreatedAt), revoked)
		}
		t.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}
