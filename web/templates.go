package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// funcs are the templates' helpers. None of them marks text safe: every
// value goes through html/template's escaping.
var funcs = template.FuncMap{
	"time": fmtTime,
	"ptime": func(t *time.Time) string {
		if t == nil {
			return "—"
		}
		return fmtTime(*t)
	},
	"value": valueText,
	"short": func(s string) string { return cut(s, 80) },
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	},
	"path": urlPath,
	"ptr": func(p *int) string {
		if p == nil {
			return "—"
		}
		return fmt.Sprint(*p)
	},
	"pf": func(p *float64) string {
		if p == nil {
			return "—"
		}
		return fmt.Sprintf("%.2f", *p)
	},
	"f1": func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"f3": func(f float64) string { return fmt.Sprintf("%.3f", f) },
	"num": func(f float64) string {
		if f == float64(int64(f)) {
			return fmt.Sprintf("%d", int64(f))
		}
		return fmt.Sprintf("%.3f", f)
	},
	"join": strings.Join,
	"first": func(s []string) string {
		if len(s) == 0 {
			return ""
		}
		return s[0]
	},
	"pct": func(a, b int) string {
		if b <= 0 {
			return "—"
		}
		return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
	},
	"add":   func(a, b float64) float64 { return a + b },
	"sub":   func(a, b float64) float64 { return a - b },
	"half":  func(a float64) float64 { return a / 2 },
	"intf":  func(i int) float64 { return float64(i) },
	"isoin": func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04") },
}

// valueText is an object's value (a JSON string's text, other JSON as
// written) or, without one, its content.
func valueText(o tenure.Object) string {
	if len(o.Value) == 0 {
		return o.Content
	}
	var s string
	if json.Unmarshal(o.Value, &s) == nil {
		return s
	}
	return string(o.Value)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// urlPath escapes a path segment.
func urlPath(s string) string { return url.PathEscape(s) }

// parsePages parses each page with the layout.
func parsePages() map[string]*template.Template {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		base := path.Base(n)
		if base == "layout.html" {
			continue
		}
		pages[base] = template.Must(template.New(base).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.tmpl", n))
	}
	return pages
}
