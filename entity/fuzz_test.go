package entity_test

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure/entity"
)

// FuzzResolve checks the invariants of parsing and resolution: a parsed
// mention's key is its type and a slug that slugs to itself, scores lie
// in [0, 1], an exact alias always links, and nothing links below
// AutoLinkScore or with a rival within the ambiguity margin.
func FuzzResolve(f *testing.F) {
	for _, s := range [][2]string{{"person:Makesh", "person:Mukesh"}, {"org:Acme, Inc.", "Acme"}, {"Jordan", "place:Jordan"},
		{"person:José Álvarez", "person:Jose Alvarez"}, {"product:iPhone 14", "product:iPhone 15"}, {"x:y:z", "::"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ma, err := entity.ParseMention("a", a)
		if err != nil {
			return
		}
		if !strings.HasPrefix(ma.Key, string(ma.Type)+":") || entity.Slug(entity.KeySlug(ma.Key)) != entity.KeySlug(ma.Key) {
			t.Fatalf("ParseMention(%q) = %+v: key is not type:slug", a, ma)
		}
		mb, err := entity.ParseMention("b", b)
		if err != nil {
			return
		}
		eb := entity.NewEntity(mb, mb.Key, "t", "", nil)
		c := entity.Score(ma, &eb)
		if c.Score < 0 || c.Score > 1 {
			t.Fatalf("Score(%q, %q) = %v", a, b, c.Score)
		}
		if ma.Key == mb.Key && c.Score != 1 {
			t.Fatalf("Score(%q, %q) = %v for one key", a, b, c.Score)
		}
		other := entity.NewEntity(ma, ma.Key+"_x", "t", "", nil)
		d := entity.Resolve(ma, []entity.Entity{eb, other})
		if d.Action == entity.Link {
			if d.Score < entity.AutoLinkScore {
				t.Fatalf("linked at %v", d.Score)
			}
			if len(d.Candidates) > 1 && d.Candidates[1].Score >= d.Score-entity.AmbiguityMargin {
				t.Fatalf("linked an ambiguous mention: %+v", d)
			}
		}
	})
}
