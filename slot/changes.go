package slot

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
)

// What differs between two items on one slot: a changed value, a value
// added, an item named as replaced.

// changed names the value that differs between two items of one slot, or
// returns "".
func changed(old, c *Item, d frameDiff) string {
	if old.Negated != c.Negated || old.without != c.without && (old.with || c.with || lacksShared(old, c) || lacksShared(c, old)) {
		return "negation"
	}
	if r := facetChange(old.Facets, c.Facets); r != "" {
		return r
	}
	if old.Owner != "" && c.Owner != "" && !sameName(old.Owner, c.Owner) {
		return "owner"
	}
	if old.Due != "" && c.Due != "" && old.Due != c.Due {
		return "due"
	}
	if len(d.namesA) > 0 && len(d.namesB) > 0 {
		return "name"
	}
	if old.value != nil && c.value != nil {
		vd := diff(old.value.Frame, c.value.Frame)
		if len(vd.onlyA) > 0 && len(vd.onlyB) > 0 || old.value.Negated != c.value.Negated ||
			facetChange(old.value.Facets, c.value.Facets) != "" {
			return "value"
		}
	}
	return ""
}

// lacksShared reports whether x, a rule, goes without what the rule
// other requires: every word of what x's "without" governs is a word of
// other's ("Grip socks are compulsory", "use the trampolines without
// grip socks"). What only x names ("ship the app without DRM" after "ship
// the app") refines it; and outside rules "without" may say what a verb
// of removing said ("cut the second interval", "run without the second
// interval").
func lacksShared(x, other *Item) bool {
	if len(x.lacking) == 0 || x.StateItem.Type != tenure.StateConstraint {
		return false
	}
	return !slices.ContainsFunc(x.lacking, func(w Word) bool { return !containsWord(other.Frame, w) })
}

// refined names the value the new item adds, or returns "".
func refined(old, c *Item, d frameDiff) string {
	if r := facetAdded(old.Facets, c.Facets); r != "" {
		return r
	}
	switch {
	case c.Owner != "" && old.Owner == "" && !old.names(c.Owner):
		// An owner the old item names ("Ask Jonas to reprint the
		// menus") is not added.
		return "owner"
	case c.Due != "" && old.Due == "":
		return "due"
	case len(d.namesB) > 0:
		return "name"
	}
	return ""
}

// names reports whether one of the item's names is the person's name or
// first name.
func (x *Item) names(person string) bool {
	return slices.ContainsFunc(x.Frame, func(w Word) bool { return w.Name && sameName(w.Text, person) })
}

// replacedBy reports whether one of phrases names this item: every
// content word of the phrase is one of the item's words, and its values
// are the item's; with plain set, the phrase names one of the words the
// item is about, not only its names.
func (x *Item) replacedBy(phrases []string, plain bool) bool {
	for _, p := range phrases {
		pa := Analyze(x.StateItem.Type, p)
		if len(pa.Frame) == 0 && len(pa.Facets) == 0 {
			continue
		}
		if plain && !slices.ContainsFunc(pa.Frame, func(w Word) bool { return !w.Name && containsWord(x.Frame, w) }) {
			continue
		}
		if !slices.ContainsFunc(pa.Frame, func(w Word) bool { return !containsWord(x.Frame, w) }) &&
			facetAdded(x.Facets, pa.Facets) == "" && facetChange(x.Facets, pa.Facets) == "" {
			return true
		}
	}
	return false
}

// sameName reports whether two owners name one person: the same name, or
// one is the other's first name.
func sameName(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	fa, fb := strings.Fields(a), strings.Fields(b)
	return len(fa) > 0 && len(fb) > 0 && strings.EqualFold(fa[0], fb[0]) && (len(fa) == 1 || len(fb) == 1)
}

// facetGroups maps each facet key to its values (bound and value), in a
// comparable form.
func facetGroups(fs []Facet) map[string][]string {
	return groupFacets(fs, func(f Facet) string { return f.Value })
}

// inclusiveGroups is facetGroups with every strict bound of whole
// numbers read as the inclusive bound it is: "over 21" as "at least 22",
// "fewer than 3" as "at most 2".
func inclusiveGroups(fs []Facet) map[string][]string {
	return groupFacets(fs, inclusive)
}

// sameGroup reports whether two items' values of key k are the same,
// as written or as inclusive bounds: "over 18" and "at least 18" are said
// for one rule as often as "over 21" and "at least 22" are.
func sameGroup(ga, gb, ia, ib map[string][]string, k string) bool {
	return slices.Equal(ga[k], gb[k]) || slices.Equal(ia[k], ib[k])
}

// inclusive is f's value as an inclusive bound: a strict bound on a whole
// number of things counted one by one moves by one ("over 21" is "at
// least 22"); any other value is as it is.
func inclusive(f Facet) string {
	if !f.strict || f.Kind != Quantity || !countedOneByOne(f.Key) {
		return f.Value
	}
	v, err := strconv.ParseFloat(f.Value, 64)
	if err != nil || v != math.Trunc(v) {
		return f.Value
	}
	switch f.Bound {
	case boundMin:
		v++
	case boundMax:
		v--
	}
	return fmtNum(v)
}

// countedOneByOne reports whether a quantity of key k counts whole
// things (people, times, nights, a counted noun, a bare number) rather
// than measuring an amount that has fractions (money, time, weight).
func countedOneByOne(k string) bool {
	return strings.HasPrefix(k, "count:") || strings.HasPrefix(k, "#") || k == "person" || k == "times" || k == "night"
}

// groupFacets maps each facet key to its values, bound and value as value
// reads it, sorted.
func groupFacets(fs []Facet, value func(Facet) string) map[string][]string {
	m := map[string][]string{}
	for _, f := range fs {
		k := string(f.Kind) + "|" + f.Key
		v := f.Bound + ":" + value(f)
		if !slices.Contains(m[k], v) {
			m[k] = append(m[k], v)
		}
	}
	for k := range m {
		slices.Sort(m[k])
	}
	return m
}

func sharesFacetKey(a, b []Facet) bool {
	ga := facetGroups(a)
	for _, f := range b {
		if _, ok := ga[string(f.Kind)+"|"+f.Key]; ok {
			return true
		}
	}
	return false
}

// facetChange names the kind of the first facet whose values differ
// between a and b, or returns "".
func facetChange(a, b []Facet) string {
	ga, gb := facetGroups(a), facetGroups(b)
	ia, ib := inclusiveGroups(a), inclusiveGroups(b)
	for _, f := range b {
		k := string(f.Kind) + "|" + f.Key
		if _, ok := ga[k]; ok && !sameGroup(ga, gb, ia, ib, k) {
			return string(f.Kind)
		}
	}
	return ""
}

// ValueChanged reports whether report states a value of a kind old
// states, and another one, as Compare reads values ("older than 21" is
// "at least 22": no change). Bare numbers, keyed by the word before them
// ("#at", "#to"), are of one kind whatever that word.
func ValueChanged(old, report []Facet) bool {
	if facetChange(old, report) != "" {
		return true
	}
	bare := func(f Facet) bool { return f.Kind == Quantity && strings.HasPrefix(f.Key, "#") }
	for _, o := range old {
		for _, n := range report {
			if bare(o) && bare(n) && o.Key != n.Key && o.Value != n.Value {
				return true
			}
		}
	}
	return false
}

// facetAdded names the kind of the first facet b has a key for that a
// has not, or returns "". A bare number of b that a states with what it
// counts is not added: "two missed SLAs" counts what "SLAs missed twice"
// does.
func facetAdded(a, b []Facet) string {
	ga := facetGroups(a)
	for _, f := range b {
		if _, ok := ga[string(f.Kind)+"|"+f.Key]; !ok && !bareIn(f, a) {
			return string(f.Kind)
		}
	}
	return ""
}

// bareIn reports whether f is a bare number (a quantity that names
// nothing it counts) and fs hold a quantity of its value.
func bareIn(f Facet, fs []Facet) bool {
	return f.Kind == Quantity && f.Key == "#" && slices.ContainsFunc(fs, func(x Facet) bool {
		return x.Kind == Quantity && x.Value == f.Value && x.Bound == f.Bound
	})
}

// ValueChange names what differs in value between two items taken to be
// on one slot (by a similarity the caller trusts), or returns "".
func ValueChange(old, c *Item) string {
	return changed(old, c, diff(old.Frame, c.Frame))
}
