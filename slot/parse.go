package slot

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// maxSubjectWords bounds a parsed subject.
const maxSubjectWords = 8

// Parse renders what an item of type t with text is about and what it
// holds of that, for an item's Subject and Value fields: the subject is
// the frame's plain words, lowercase, in order ("analytics store",
// "dashboard p95 load"); the value is its names and explicit values as
// written ("ClickHouse", "under 2 seconds", "PostgreSQL 16, RDS"), or "no"
// for a negated item with neither. Either is "" when the text has none.
func Parse(t tenure.StateType, text string) (subject, value string) {
	return Analyze(t, text).Parse()
}

// Parse is the package's Parse for an analysis.
func (a Analysis) Parse() (subject, value string) {
	type part struct {
		at   int
		text string
		name bool
	}
	var sub []string
	var vals []part
	versioned := map[int]bool{}
	for _, f := range a.Facets {
		if f.Kind == Version {
			versioned[f.at] = true
		}
		vals = append(vals, part{f.at, f.Text, false})
	}
	for _, w := range a.Frame {
		switch {
		case w.Name && !versioned[w.at]:
			vals = append(vals, part{w.at, w.Text, true})
		case w.Name, w.Stem == "to", w.Stem == "from":
		case len(sub) < maxSubjectWords:
			sub = append(sub, strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(w.Text, "'s"), "’s")))
		}
	}
	slices.SortStableFunc(vals, func(x, y part) int { return x.at - y.at })
	var out []string
	for i, v := range vals {
		// Adjacent names are one name: "GitHub Actions".
		if i > 0 && v.name && vals[i-1].name && vals[i-1].at == v.at-1 {
			out[len(out)-1] += " " + v.text
			continue
		}
		out = append(out, v.text)
	}
	if len(out) == 0 && a.Negated {
		out = append(out, "no")
	}
	return strings.Join(sub, " "), strings.Join(out, ", ")
}
