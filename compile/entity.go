package compile

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/tenure-dev/tenure"
)

// Resolver maps entity mentions to canonical entity ids. The default
// SlugResolver matches normalized aliases; a full resolver (candidate
// generation, attribute similarity, review queue) can replace it.
type Resolver interface {
	// Slug normalizes a mention or alias for lookup.
	Slug(s string) string
	// Mentions returns the canonical entity ids that text mentions, using
	// table (slug → entity ids).
	Mentions(text string, table map[string][]string) []string
}

// SlugResolver resolves mentions by exact slug match of word n-grams (up
// to three words) against the alias table.
type SlugResolver struct{}

// Slug lowercases s, removes punctuation and joins words with underscores
// ("Acme Corp." → "acme_corp").
func (SlugResolver) Slug(s string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '-' || r == '_' || r == '/' || r == ':':
			sep = true
		}
	}
	return b.String()
}

// Mentions implements Resolver.
func (s SlugResolver) Mentions(text string, table map[string][]string) []string {
	words := strings.Fields(text)
	seen := map[string]bool{}
	var out []string
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			for _, id := range table[s.Slug(strings.Join(words[i:i+n], " "))] {
				if !seen[id] {
					seen[id] = true
					out = append(out, id)
				}
			}
		}
	}
	return out
}

// resolveEntities is step 2: it builds the alias table of the candidates,
// finds the entities the query mentions and marks candidates about them.
func (r *run) resolveEntities(context.Context) (int, int, error) {
	res := r.c.opt.Resolver
	table := map[string][]string{}
	// The subunits of a document share its object, entities and aliases
	// included: each object is read once, or a document of many subunits
	// with many aliases would cost their product.
	seen := map[*tenure.Object]bool{}
	for _, it := range r.items {
		if seen[it.obj.Object] {
			continue
		}
		seen[it.obj.Object] = true
		for _, id := range it.obj.CanonicalEntityIDs {
			add := func(alias string) {
				if k := res.Slug(alias); k != "" && !contains(table[k], id) {
					table[k] = append(table[k], id)
				}
			}
			add(id)
			if i := strings.IndexByte(id, ':'); i >= 0 {
				add(id[i+1:]) // "person:john_doe" answers to "John Doe"
			}
			for _, a := range it.obj.Aliases {
				add(a)
			}
		}
	}
	mentioned := map[string]bool{}
	r.mentioned = res.Mentions(r.search, table)
	for _, id := range r.mentioned {
		mentioned[id] = true
	}
	marked := 0
	about := map[*tenure.Object]bool{}
	for _, it := range r.items {
		is, ok := about[it.obj.Object]
		if !ok {
			is = slices.ContainsFunc(it.obj.CanonicalEntityIDs, func(id string) bool { return mentioned[id] })
			about[it.obj.Object] = is
		}
		if is {
			it.entity = 1
			marked++
		}
	}
	return len(r.items), marked, nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
