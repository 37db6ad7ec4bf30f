package entity

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Thresholds of the resolution decision (context-architecture.md).
const (
	// AutoLinkScore is the score at or above which a mention binds to an
	// existing entity.
	AutoLinkScore = 0.95
	// ReviewScore is the score at or above which a mention that does not bind
	// becomes a pending entity; below it the mention is a new entity.
	ReviewScore = 0.70
	// AmbiguityMargin: a mention whose second-best candidate scores within
	// this margin of the best one is ambiguous and never binds.
	AmbiguityMargin = 0.05
)

// The scores of the kinds of match. Every kind but an exact alias and a
// normalized name scores below AutoLinkScore, so only those ever bind without
// review.
const (
	scoreAlias      = 1.0  // the mention's key is an alias of the entity
	scoreNormalized = 0.97 // the same name once variants are set aside
	scorePartial    = 0.80 // the mention's words are a part of the name ("Lena" / "Lena Ortiz")
	fuzzyCap        = 0.94 // the best a fuzzy match scores
	untypedFactor   = 0.97 // an untyped mention of a typed entity
	minTokenSim     = 0.85 // below it two words do not match at all
)

// Score scores how likely m denotes e: 0 when their types are
// incompatible or their names unrelated. It compares the mention with
// each of the entity's aliases and its label and keeps the best match.
func Score(m Mention, e *Entity) Candidate {
	best := Candidate{EntityID: e.ID}
	if !Compatible(m.Type, e.Type) {
		return best
	}
	try := func(score float64, why string) {
		if score > best.Score {
			best.Score, best.Why = score, why
		}
	}
	mslug := KeySlug(m.Key)
	mtok := tokens(m.Type, mslug)
	for _, a := range append(slices.Clip(e.Aliases), Key(e.Type, e.Label)) {
		if a == m.Key {
			try(scoreAlias, "alias")
			continue
		}
		s, why := nameSim(mslug, mtok, KeySlug(a), tokens(e.Type, KeySlug(a)))
		if m.Type != e.Type {
			s *= untypedFactor
		}
		try(s, why)
	}
	best.Score = round(best.Score)
	return best
}

// Resolve decides what m denotes among entities (active and pending
// ones are candidates; merged ones are not, their aliases having moved).
func Resolve(m Mention, entities []Entity) Decision {
	d := Decision{Mention: m, Action: New}
	for i := range entities {
		e := &entities[i]
		if e.Status == StatusMerged {
			continue
		}
		if c := Score(m, e); c.Score >= ReviewScore {
			d.Candidates = append(d.Candidates, c)
		}
	}
	if len(d.Candidates) == 0 {
		return d
	}
	slices.SortFunc(d.Candidates, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.EntityID, b.EntityID))
	})
	best := d.Candidates[0]
	d.Score = best.Score
	switch {
	case best.Score < AutoLinkScore:
		d.Action = Review
	case len(d.Candidates) > 1 && d.Candidates[1].Score >= best.Score-AmbiguityMargin:
		d.Action, d.Ambiguous = Review, true
	default:
		d.Action, d.EntityID = Link, best.EntityID
	}
	return d
}

// nameSim compares two slugs and their normalized words.
func nameSim(a string, at []string, b string, bt []string) (float64, string) {
	if a == b {
		return scoreAlias, "alias"
	}
	if len(at) == 0 || len(bt) == 0 {
		return 0, ""
	}
	if slices.Equal(sorted(at), sorted(bt)) {
		return scoreNormalized, "normalized"
	}
	short, long := at, bt
	if len(short) > len(long) {
		short, long = long, short
	}
	if len(short) < len(long) && subset(short, long) {
		return scorePartial, "partial"
	}
	// Align each word of the shorter name with the most similar unused
	// word of the longer one; unmatched words count as 0.
	used := make([]bool, len(long))
	sum := 0.0
	for _, w := range short {
		bi, bs := -1, 0.0
		for j, v := range long {
			if used[j] {
				continue
			}
			if s := tokenSim(w, v); s > bs {
				bi, bs = j, s
			}
		}
		if bi >= 0 {
			used[bi] = true
			sum += bs
		}
	}
	return fuzzyCap * sum / float64(len(long)), "fuzzy"
}

// tokenSim compares two words: equal, an initial of the other, or
// spelled alike (Jaro-Winkler at least minTokenSim). Words with digits
// match only exactly: "16" is not "15".
func tokenSim(a, b string) float64 {
	if a == b {
		return 1
	}
	if hasDigit(a) || hasDigit(b) {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 1 && ra[0] == rb[0] || len(rb) == 1 && rb[0] == ra[0] {
		return 0.9
	}
	if s := jaroWinkler(ra, rb); s >= minTokenSim {
		return s
	}
	return 0
}

// Words set aside when comparing names, by the types they apply to.
var (
	honorifics = set("mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "madam", "mister")
	legal      = set("inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llc", "llp", "lp",
		"plc", "gmbh", "ag", "sa", "bv", "pty")
	expand = map[string]string{"st": "saint", "ft": "fort", "mt": "mount"}
)

// tokens returns a slug's words with diacritics removed and, by type,
// honorifics (person), legal suffixes (org), abbreviations (place) and a
// leading article set aside. An untyped name is read as every type.
func tokens(t Type, slug string) []string {
	words := strings.Split(fold(slug), "_")
	out := words[:0]
	for i, w := range words {
		switch {
		case w == "":
		case i == 0 && w == "the" && len(words) > 1:
		case (t == Person || t == Other) && honorifics[w] && len(words) > 1:
		case (t == Org || t == Other) && legal[w] && i > 0:
		case (t == Place || t == Other) && expand[w] != "":
			out = append(out, expand[w])
		default:
			out = append(out, w)
		}
	}
	return out
}

var foldT = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

// fold removes diacritics ("josé" → "jose").
func fold(s string) string {
	out, _, err := transform.String(foldT, s)
	if err != nil {
		return s
	}
	return out
}

// jaroWinkler is the Jaro-Winkler similarity of two words (prefix scale
// 0.1, at most four prefix characters).
func jaroWinkler(a, b []rune) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	window := max(len(a), len(b))/2 - 1
	window = max(window, 0)
	ma, mb := make([]bool, len(a)), make([]bool, len(b))
	matches := 0
	for i := range a {
		lo, hi := max(0, i-window), min(len(b), i+window+1)
		for j := lo; j < hi; j++ {
			if !mb[j] && a[i] == b[j] {
				ma[i], mb[j] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	trans, j := 0, 0
	for i := range a {
		if !ma[i] {
			continue
		}
		for !mb[j] {
			j++
		}
		if a[i] != b[j] {
			trans++
		}
		j++
	}
	m := float64(matches)
	jaro := (m/float64(len(a)) + m/float64(len(b)) + (m-float64(trans)/2)/m) / 3
	prefix := 0
	for prefix < min(4, len(a), len(b)) && a[prefix] == b[prefix] {
		prefix++
	}
	return jaro + float64(prefix)*0.1*(1-jaro)
}

func hasDigit(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

func sorted(s []string) []string { c := slices.Clone(s); slices.Sort(c); return c }

func subset(short, long []string) bool {
	for _, w := range short {
		if !slices.Contains(long, w) {
			return false
		}
	}
	return true
}

func set(words ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}

func round(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
