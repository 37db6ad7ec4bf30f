package wordnet

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"sort"
	"strings"
	"sync"
)

// POS is a WordNet part of speech.
type POS byte

// The parts of speech WordNet knows.
const (
	Noun      POS = 'n'
	Verb      POS = 'v'
	Adjective POS = 'a'
	Adverb    POS = 'r'
)

//go:embed wordnet.tsv.gz
var packed []byte

// rows are the table's lines, sorted: lemma rows "pos\tlemma\tlexfile\t
// synsets\tderivations" and exception rows "x<pos>\tform\tbases".
var rows = sync.OnceValue(func() []string {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		panic("wordnet: embedded table: " + err.Error())
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		panic("wordnet: embedded table: " + err.Error())
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
})

// find returns the row whose first fields are key, or "".
func find(key string) string {
	rs := rows()
	prefix := key + "\t"
	i := sort.Search(len(rs), func(i int) bool { return rs[i] >= prefix })
	if i < len(rs) && strings.HasPrefix(rs[i], prefix) {
		return rs[i]
	}
	return ""
}

type entry struct {
	lexfile string
	synsets []string
	// derivs are the synsets the lemma's first senses are derivationally
	// related to.
	derivs []string
}

func lookup(lemma string, pos POS) (entry, bool) {
	r := find(string(pos) + "\t" + lemma)
	if r == "" {
		return entry{}, false
	}
	f := strings.Split(r, "\t")
	e := entry{lexfile: f[2], synsets: strings.Split(f[3], ",")}
	if len(f) > 4 && f[4] != "" {
		e.derivs = strings.Split(f[4], ",")
	}
	return e, true
}

// normal is how the table spells a word: lower case, words joined by "_".
func normal(word string) string {
	return strings.Join(strings.Fields(strings.ToLower(word)), "_")
}

// detachments are WordNet's suffix rules (morphy): a form ending in the
// first string may be a base form ending in the second.
var detachments = map[POS][][2]string{
	Noun:      {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	Verb:      {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	Adjective: {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

// Lemmas returns the base forms of word as pos that WordNet knows, the
// word itself first when it is one; nil when it knows none.
func Lemmas(word string, pos POS) []string {
	w := normal(word)
	if w == "" {
		return nil
	}
	var out []string
	add := func(l string) {
		for _, o := range out {
			if o == l {
				return
			}
		}
		if _, ok := lookup(l, pos); ok {
			out = append(out, l)
		}
	}
	add(w)
	if r := find("x" + string(pos) + "\t" + w); r != "" {
		for _, b := range strings.Split(strings.Split(r, "\t")[2], ",") {
			add(b)
		}
	}
	for _, d := range detachments[pos] {
		if strings.HasSuffix(w, d[0]) && len(w) > len(d[0]) {
			add(w[:len(w)-len(d[0])] + d[1])
		}
	}
	return out
}

// Known reports whether word is a form of a lemma WordNet knows as pos.
func Known(word string, pos POS) bool { return len(Lemmas(word, pos)) > 0 }

// Class returns the lexicographer class of word's most frequent sense as
// pos ("noun.person", "verb.motion"), or "" when WordNet does not know it.
func Class(word string, pos POS) string {
	for _, l := range Lemmas(word, pos) {
		e, _ := lookup(l, pos)
		return lexnames[e.lexfile]
	}
	return ""
}

// Synonymous reports whether a and b, as pos, are forms of the same lemma
// or share one of their first senses senses (1 to 3; WordNet orders
// senses by frequency, so 1 is the strictest).
func Synonymous(a, b string, pos POS, senses int) bool {
	la, lb := Lemmas(a, pos), Lemmas(b, pos)
	for _, x := range la {
		ex, _ := lookup(x, pos)
		for _, y := range lb {
			if x == y {
				return true
			}
			ey, _ := lookup(y, pos)
			if shareSense(ex.synsets, ey.synsets, senses) {
				return true
			}
		}
	}
	return false
}

func shareSense(a, b []string, senses int) bool {
	for i := 0; i < len(a) && i < senses; i++ {
		for j := 0; j < len(b) && j < senses; j++ {
			if a[i] == b[j] {
				return true
			}
		}
	}
	return false
}

// allPOS are the parts of speech Derived looks words up in.
var allPOS = []POS{Noun, Verb, Adjective, Adverb}

// Derived reports whether a and b are derivationally related through
// their first senses, in whatever parts of speech: a lemma of one is
// related to a synset among the first senses of a lemma of the other
// ("sue" and "lawsuit", "expire" and "expiry", "sign" and "signatory").
func Derived(a, b string) bool {
	var ea, eb []entry
	for _, p := range allPOS {
		for _, l := range Lemmas(a, p) {
			e, _ := lookup(l, p)
			ea = append(ea, e)
		}
		for _, l := range Lemmas(b, p) {
			e, _ := lookup(l, p)
			eb = append(eb, e)
		}
	}
	for _, x := range ea {
		for _, y := range eb {
			if overlaps(x.derivs, y.synsets) || overlaps(y.derivs, x.synsets) {
				return true
			}
		}
	}
	return false
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
