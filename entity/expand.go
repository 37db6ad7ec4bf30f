package entity

import (
	"slices"
	"strings"
	"unicode"
)

// Expansion limits: how many words a name of a query may have, how many
// entities one query expands and how many names each adds.
const (
	maxNameWords      = 3
	MaxExpansions     = 8
	MaxExpansionNames = 8
	// MaxQueryWords bounds the words of a query whose names are looked
	// up (QuerySlugs).
	MaxQueryWords = 256
)

// Expansion is a name of a query that denotes an entity, and the
// entity's other names.
type Expansion struct {
	// Name is the query's words that named the entity.
	Name string
	// Entity is the entity's id.
	Entity string
	// Names are its other names: label, surface forms and the names of
	// its aliases, less those the query already holds.
	Names []string
}

// ExpandQuery finds the names of text (runs of up to three words, longest
// first) that are exactly an alias, the label or a surface form of an
// active or pending entity of entities (compared as slugs: "Mukesh",
// "mukesh" and "person:mukesh" are one name), and returns each with the
// entity's other names, in the order of text. It never guesses: a name
// that only resembles an entity (a fuzzy match) expands nothing, and a
// merged entity's names are found through the entity it was merged into,
// which holds them. A name that denotes several entities expands each.
func ExpandQuery(text string, entities []Entity) []Expansion {
	byName := map[string][]int{}
	for i, e := range entities {
		if e.Status == StatusMerged {
			continue
		}
		for _, n := range names(e) {
			if s := Slug(n); s != "" && !slices.Contains(byName[s], i) {
				byName[s] = append(byName[s], i)
			}
		}
	}
	if len(byName) == 0 {
		return nil
	}
	words := queryWords(text)
	// The names the query holds already, as slugs between underscores.
	held := "_" + Slug(strings.Join(words, " ")) + "_"
	used := make([]bool, len(words))
	var out []Expansion
	seen := map[int]bool{}
	for n := maxNameWords; n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if slices.Contains(used[i:i+n], true) {
				continue
			}
			name := strings.Join(words[i:i+n], " ")
			hits := byName[Slug(name)]
			if len(hits) == 0 {
				continue
			}
			for j := i; j < i+n; j++ {
				used[j] = true
			}
			for _, h := range hits {
				if seen[h] || len(out) == MaxExpansions {
					continue
				}
				seen[h] = true
				x := Expansion{Name: name, Entity: entities[h].ID}
				added := map[string]bool{Slug(name): true}
				for _, other := range names(entities[h]) {
					s := Slug(other)
					if s == "" || added[s] || strings.Contains(held, "_"+s+"_") || len(x.Names) == MaxExpansionNames {
						continue
					}
					added[s] = true
					x.Names = append(x.Names, other)
				}
				if len(x.Names) > 0 {
					out = append(out, x)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Expansion) int {
		return strings.Index(text, a.Name) - strings.Index(text, b.Name)
	})
	return out
}

// QuerySlugs returns the slugs of the runs of up to three words of the
// first MaxQueryWords words of text: the names ExpandQuery may match, to
// look up in a registry's name index.
func QuerySlugs(text string) []string {
	words := queryWords(text)
	words = words[:min(len(words), MaxQueryWords)]
	seen := map[string]bool{}
	var out []string
	for n := 1; n <= maxNameWords; n++ {
		for i := 0; i+n <= len(words); i++ {
			if s := Slug(strings.Join(words[i:i+n], " ")); s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// names returns an entity's names: its label, its surface forms and its
// aliases as words ("person:john_doe" → "john doe").
func names(e Entity) []string {
	out := append([]string{e.Label}, e.Names...)
	for _, a := range e.Aliases {
		out = append(out, strings.ReplaceAll(KeySlug(a), "_", " "))
	}
	return out
}

// queryWords splits text into words: letters, digits and the hyphens and
// apostrophes inside them; a possessive "'s" is dropped ("Mukesh's" →
// "Mukesh").
func queryWords(text string) []string {
	f := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\'' && r != '’'
	})
	out := f[:0]
	for _, w := range f {
		w = strings.Trim(w, "-'’")
		for _, s := range []string{"'s", "’s"} {
			w = strings.TrimSuffix(w, s)
		}
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}
