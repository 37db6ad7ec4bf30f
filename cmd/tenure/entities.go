package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/entity"
)

var entitiesSpec = commandSpec{
	name:    "entities",
	args:    "list|show|resolve|merge|split|pending|undo",
	summary: "the entity registry: list, show, resolve, merge, split, pending, undo",
	detail: `Entities are the people, organisations, places, projects and products that
objects name in canonical_entity_ids (docs/entities.md). Each is resolved
as the object is written, in its user's registry (the shared one for
objects of no user): a name that matches an entity (score at least 0.95:
the same name, or the same once honorifics, legal suffixes, diacritics and
word order are set aside) binds to it; one that resembles an entity
(at least 0.70: "Mukesh" and "Makesh", "Lena" and "Lena Ortiz") becomes a
pending entity for review; anything else is a new entity. Merges, links,
splits and keeps are recorded and can be undone.

  entities list [--status S] [--type T] [--registry USER]
  entities show ID                     versions and operations
  entities resolve MENTION             what a name would resolve to
  entities merge FROM INTO [--reason TEXT]
  entities split ID --alias KEY [--alias KEY] [--label NAME]
  entities pending                     the entities waiting for review
  entities pending link ID INTO        settle: the same entity as INTO
  entities pending keep ID             settle: an entity of its own
  entities undo OP_ID

IDs and aliases are <type>:<slug> (person:john_doe). A user curates its
own registry; the shared one needs the entities:write (or rules:write)
permission.`,
	new: func() subcommand { return new(entitiesCmd) },
}

type entitiesCmd struct {
	common
	status, typ, registry, reason, label string
	aliases                              stringList
}

// entitiesFlags are the flags of each action besides the common ones.
var entitiesFlags = map[string][]string{
	"list": {"status", "type", "registry"}, "show": {"registry"}, "resolve": {"registry"},
	"merge": {"registry", "reason"}, "split": {"registry", "reason", "alias", "label"},
	"pending": {"registry", "reason"}, "undo": {},
}

func (c *entitiesCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.status, "status", "", "list: only entities with this `status`: active, pending, merged")
	fs.StringVar(&c.typ, "type", "", "list: only entities of this `type`: person, org, place, project, product, other")
	fs.StringVar(&c.registry, "registry", "", "another `user`'s registry (needs scope:any_user; default: your own and the shared one)")
	fs.StringVar(&c.reason, "reason", "", "merge, split, pending: why, as `text`, for the history")
	fs.Var(&c.aliases, "alias", "split: an alias `key` that belongs to the new entity (repeatable)")
	fs.StringVar(&c.label, "label", "", "split: the new entity's display `name`")
}

// entitiesArgs are the positional arguments of each action.
var entitiesArgs = map[string]int{"list": 0, "show": 1, "resolve": 1, "merge": 2, "split": 1, "undo": 1}

func (c *entitiesCmd) exec(ctx context.Context, sio stdio, args []string) error {
	usage := tenure.Errorf(tenure.CodeInvalid, "", "usage: tenure entities %s [flags] (see tenure help entities)", entitiesSpec.args)
	if len(args) == 0 || entitiesFlags[args[0]] == nil {
		return usage
	}
	action, rest := args[0], args[1:]
	var bad string
	c.fs.Visit(func(f *flag.Flag) {
		if bad == "" && !isCommonFlag(f.Name) && !slices.Contains(entitiesFlags[action], f.Name) {
			bad = f.Name
		}
	})
	if bad != "" {
		return tenure.Errorf(tenure.CodeInvalid, "--"+bad, "does not apply to entities %s", action)
	}
	if n, ok := entitiesArgs[action]; ok && len(rest) != n {
		return tenure.Errorf(tenure.CodeInvalid, "", "entities %s takes %d argument(s), got %q (see tenure help entities)", action, n, rest)
	}
	if action == "pending" && !(len(rest) == 0 || len(rest) == 3 && rest[0] == "link" || len(rest) == 2 && rest[0] == "keep") {
		return tenure.Errorf(tenure.CodeInvalid, "", "usage: tenure entities pending [link ID INTO | keep ID]")
	}
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		var ch entity.Change
		var err error
		switch action {
		case "list":
			return c.list(ctx, sio, st, p, entity.Query{UserID: c.registry, Status: entity.Status(c.status), Type: entity.Type(c.typ)})
		case "pending":
			switch {
			case len(rest) == 0:
				return c.list(ctx, sio, st, p, entity.Query{UserID: c.registry, Status: entity.StatusPending})
			case rest[0] == "link":
				ch, err = st.SettleEntity(ctx, p, entity.SettleRequest{ID: rest[1], Into: rest[2], UserID: c.registry, Reason: c.reason})
			default:
				ch, err = st.SettleEntity(ctx, p, entity.SettleRequest{ID: rest[1], Keep: true, UserID: c.registry, Reason: c.reason})
			}
		case "show":
			v, err := st.Entity(ctx, p, rest[0], c.registry)
			if err != nil {
				return entityFlag(err)
			}
			return c.output(sio, v, func() error { return printEntity(sio.out, v) })
		case "resolve":
			d, err := st.ResolveMention(ctx, p, rest[0], c.registry)
			if err != nil {
				return entityFlag(err)
			}
			return c.output(sio, d, func() error { return printDecision(sio.out, d) })
		case "merge":
			ch, err = st.MergeEntities(ctx, p, entity.MergeRequest{From: rest[0], Into: rest[1], UserID: c.registry, Reason: c.reason})
		case "split":
			ch, err = st.SplitEntity(ctx, p, entity.SplitRequest{ID: rest[0], Aliases: c.aliases, Label: c.label, UserID: c.registry, Reason: c.reason})
		case "undo":
			ch, err = st.UndoEntityOp(ctx, p, rest[0])
		}
		if err != nil {
			return entityFlag(err)
		}
		return c.output(sio, ch, func() error { return printChange(sio.out, ch) })
	})
}

// entityFlags maps the registry's error fields to the flags that set them.
var entityFlags = map[string]string{"status": "--status", "type": "--type", "user_id": "--registry", "aliases": "--alias", "label": "--label"}

// entityFlag names an error's field as the flag that set it.
func entityFlag(err error) error {
	te := *tenure.AsError(err)
	f, ok := entityFlags[te.Field]
	if !ok {
		return err
	}
	te.Field = f
	return &te
}

func (c *entitiesCmd) list(ctx context.Context, sio stdio, st backend, p tenure.Principal, q entity.Query) error {
	es, err := st.Entities(ctx, p, q)
	if err != nil {
		return entityFlag(err)
	}
	if es == nil {
		es = []entity.Entity{}
	}
	return c.output(sio, es, func() error { return printEntities(sio.out, es) })
}

// printEntities prints entities as a table.
func printEntities(w io.Writer, es []entity.Entity) error {
	var b bytes.Buffer
	if len(es) == 0 {
		b.WriteString("no entities\n")
	} else {
		t := newTable(&b)
		fmt.Fprintln(t, "ID\tTYPE\tLABEL\tSTATUS\tREGISTRY\tALIASES")
		for _, e := range es {
			status := string(e.Status)
			switch {
			case e.Status == entity.StatusMerged:
				status += " into " + e.MergedInto
			case len(e.Candidates) > 0:
				var cs []string
				for _, c := range e.Candidates {
					cs = append(cs, fmt.Sprintf("%s %.2f", c.EntityID, c.Score))
				}
				status += " (" + strings.Join(cs, ", ") + ")"
			}
			reg := e.UserID
			if reg == "" {
				reg = "shared"
			}
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Type, oneLine(e.Label), status, reg, strings.Join(e.Aliases, ", "))
		}
		t.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

// printEntity prints an entity, its versions and operations.
func printEntity(w io.Writer, v entity.View) error {
	var b bytes.Buffer
	e := v.Entity
	fmt.Fprintf(&b, "%s (%s) %q: %s\n", e.ID, e.Type, e.Label, e.Status)
	if e.MergedInto != "" {
		fmt.Fprintf(&b, "merged into %s\n", e.MergedInto)
	}
	fmt.Fprintf(&b, "aliases: %s\n", strings.Join(e.Aliases, ", "))
	if len(e.Names) > 0 {
		fmt.Fprintf(&b, "names: %s\n", oneLine(strings.Join(e.Names, "; ")))
	}
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "candidate: %s %.3f (%s)\n", c.EntityID, c.Score, c.Why)
	}
	b.WriteString("versions:\n")
	t := newTable(&b)
	for _, x := range v.Versions {
		op := x.OpID
		if op == "" {
			op = "write"
		}
		fmt.Fprintf(t, "  v%d\t%s\t%s\t%s\tby %s\t%s\n", x.Version, stamp(x.TxStart), openStamp(x.TxEnd), x.Status, x.ChangedBy, op)
	}
	t.Flush()
	if len(v.Ops) > 0 {
		b.WriteString("operations:\n")
		for _, op := range v.Ops {
			writeOp(&b, op)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeOp(b *bytes.Buffer, op entity.Op) {
	fmt.Fprintf(b, "  %s %s %s", op.ID, op.Kind, op.From)
	if op.Into != "" {
		fmt.Fprintf(b, " → %s", op.Into)
	}
	if len(op.Aliases) > 0 {
		fmt.Fprintf(b, " [%s]", strings.Join(op.Aliases, ", "))
	}
	fmt.Fprintf(b, " by %s at %s", op.By, stamp(op.At))
	if op.Reason != "" {
		fmt.Fprintf(b, " (%s)", oneLine(op.Reason))
	}
	if op.UndoneAt != nil {
		fmt.Fprintf(b, "; undone by %s at %s", op.UndoneBy, stamp(*op.UndoneAt))
	}
	b.WriteByte('\n')
}

// printChange prints what an operation did.
func printChange(w io.Writer, ch entity.Change) error {
	var b bytes.Buffer
	if ch.Op.UndoneAt != nil {
		b.WriteString("undone:\n")
	}
	writeOp(&b, ch.Op)
	for _, e := range ch.Entities {
		if e.Status == entity.StatusMerged {
			fmt.Fprintf(&b, "  %s v%d merged into %s\n", e.ID, e.Version, e.MergedInto)
			continue
		}
		fmt.Fprintf(&b, "  %s v%d %s: %s\n", e.ID, e.Version, e.Status, strings.Join(e.Aliases, ", "))
	}
	writeChanges(&b, ch.Claims)
	_, err := w.Write(b.Bytes())
	return err
}

// printDecision prints a resolution decision.
func printDecision(w io.Writer, d entity.Decision) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s → %s", d.Mention.Key, d.Action)
	if d.EntityID != "" {
		fmt.Fprintf(&b, " %s", d.EntityID)
	}
	if d.Ambiguous {
		b.WriteString(" (ambiguous)")
	}
	fmt.Fprintf(&b, " %.3f\n", d.Score)
	for _, c := range d.Candidates {
		fmt.Fprintf(&b, "  %s %.3f (%s)\n", c.EntityID, c.Score, c.Why)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// oneLine escapes newlines and tabs for one line of a table.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)
}
