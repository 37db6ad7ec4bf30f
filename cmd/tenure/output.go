package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tenure-dev/tenure"
)

// writeJSON writes v as indented JSON, without HTML escaping so that
// values read back exactly as written.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return &tenure.Error{Code: tenure.CodeInternal, Message: "write output", Err: err}
	}
	return nil
}

// newTable returns a tab writer for column output.
func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) }

// valueText renders an object's value for one line of human output: a
// string as itself, other JSON compactly, newlines and tabs escaped.
func valueText(o *tenure.Object) string {
	s := o.Content
	if len(o.Value) > 0 {
		s = tenure.ValueText(o.Value)
	}
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}

// clip shortens s to n characters for table cells.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// stamp formats a time for human output at full precision, because
// transaction times are what --as-of-tx takes.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// openStamp formats the end of an interval; nil means still open.
func openStamp(t *time.Time) string {
	if t == nil {
		return "∞"
	}
	return stamp(*t)
}

// describe is the bracketed summary of an object version shown by get and
// put: status, valid time, id and version.
func describe(o *tenure.Object) string {
	valid := "valid from " + stamp(o.ValidFrom)
	if o.ValidUntil != nil {
		valid += " until " + stamp(*o.ValidUntil)
	}
	extra := ""
	if o.NeedsReview {
		extra = ", needs review"
	}
	return fmt.Sprintf("[%s, %s, %s, v%d%s]", o.Status, valid, o.ObjectID, o.Version, extra)
}

// plural returns "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
