package snapshot

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// decide applies the group's strategy to its atoms (in aggregation order:
// weight descending, then agent, value and id), setting its winners, its
// value (or values, or removal) and its losers with their reasons.
func (a *aggregation) decide(g *group) {
	atoms := g.atoms
	if g.strategy == ExpertOverride {
		experts := a.cfg.expertsFor(g.loc)
		var exp, rest []*atom
		for _, at := range atoms {
			if isExpert(at, experts) {
				exp = append(exp, at)
			} else {
				rest = append(rest, at)
			}
		}
		if len(exp) > 0 {
			for _, at := range rest {
				g.losers = append(g.losers, loss{at, LostExpert, "an expert for this path (" + strings.Join(experts, ", ") + ") spoke"})
			}
			atoms = exp
		}
		a.weightedMerge(g, atoms)
		return
	}
	if g.appends {
		switch g.strategy {
		case HighestWeight:
			top := atoms[0].it.w
			for _, at := range atoms {
				if at.it.w == top {
					g.winners = append(g.winners, at)
					g.values = append(g.values, at.value)
				} else {
					g.losers = append(g.losers, loss{at, LostOutweighed, heldBy(atoms[0])})
				}
			}
		case Union, MajorityVote:
			a.union(g, atoms, nil)
		default:
			a.weightedMerge(g, atoms)
		}
		return
	}
	switch g.strategy {
	case MajorityVote:
		majority(g, atoms)
	case HighestWeight:
		g.winners = []*atom{atoms[0]}
		g.remove, g.value = atoms[0].kind == kindRemove, atoms[0].value
		agree(g, atoms)
	case Union:
		arrays := true
		for _, at := range atoms {
			_, isArray := at.value.([]any)
			arrays = arrays && at.kind == kindSet && isArray
		}
		if arrays {
			old, _ := lookup(a.base, g.loc)
			prior, _ := old.([]any)
			a.union(g, atoms, prior)
			g.value, g.values = g.values, nil
			return
		}
		a.weightedMerge(g, atoms)
	default:
		a.weightedMerge(g, atoms)
	}
}

// isExpert reports whether an atom's agent, or one of its roles, is an
// expert.
func isExpert(at *atom, experts []string) bool {
	if slices.Contains(experts, at.it.d.AgentID) {
		return true
	}
	for _, r := range at.it.d.AgentRoles {
		if slices.Contains(experts, r) {
			return true
		}
	}
	return false
}

// heldBy says who holds a location, for a loser's detail.
func heldBy(w *atom) string {
	return fmt.Sprintf("%s holds it with weight %s", w.it.d.AgentID, strconv.FormatFloat(w.it.w, 'f', -1, 64))
}

// agree makes the atoms that propose the first atom's value winners and
// the others losers (outweighed).
func agree(g *group, atoms []*atom) {
	for _, at := range atoms[1:] {
		if at.canon == atoms[0].canon {
			g.winners = append(g.winners, at)
		} else {
			g.losers = append(g.losers, loss{at, LostOutweighed, heldBy(atoms[0])})
		}
	}
}

// weightedMerge: the heaviest atom holds the location; objects merge
// member by member (a member set by a heavier delta stays); additions to
// an array are all kept, heaviest first.
func (a *aggregation) weightedMerge(g *group, atoms []*atom) {
	if g.appends {
		for _, at := range atoms {
			g.winners = append(g.winners, at)
			g.values = append(g.values, at.value)
		}
		return
	}
	first := atoms[0]
	g.winners = []*atom{first}
	obj, isObject := first.value.(map[string]any)
	if first.kind == kindRemove || !isObject {
		g.remove, g.value = first.kind == kindRemove, first.value
		agree(g, atoms)
		return
	}
	merged := clone(obj).(map[string]any)
	for _, at := range atoms[1:] {
		src, ok := at.value.(map[string]any)
		if at.kind == kindRemove || !ok {
			g.losers = append(g.losers, loss{at, LostOutweighed, heldBy(first)})
			continue
		}
		kept, lost := mergeInto(merged, src, "")
		switch {
		case len(lost) == 0 || kept:
			g.winners = append(g.winners, at)
			if len(lost) > 0 {
				if g.partial == nil {
					g.partial = map[*atom][]string{}
				}
				g.partial[at] = lost
			}
		default:
			g.losers = append(g.losers, loss{at, LostOutweighed, "every member it sets is held by a heavier delta: " + strings.Join(lost, ", ")})
		}
	}
	g.value = merged
}

// mergeInto merges src's members into dst where dst has none; it reports
// whether any member of src was added or agreed, and the members (dotted)
// that dst already held with another value.
func mergeInto(dst, src map[string]any, prefix string) (kept bool, lost []string) {
	for _, k := range sortedKeys(src) {
		sv := src[k]
		dv, ok := dst[k]
		switch {
		case !ok:
			dst[k] = clone(sv)
			kept = true
		default:
			dm, dObj := dv.(map[string]any)
			sm, sObj := sv.(map[string]any)
			if dObj && sObj {
				k2, l2 := mergeInto(dm, sm, prefix+k+".")
				kept = kept || k2
				lost = append(lost, l2...)
			} else if equal(dv, sv) {
				kept = true
			} else {
				lost = append(lost, prefix+k)
			}
		}
	}
	return kept, lost
}

// union keeps every value once: prior's elements, then each atom's
// (appended ones, or the elements of the arrays they set), heaviest
// first; every atom wins.
func (a *aggregation) union(g *group, atoms []*atom, prior []any) {
	seen := map[string]bool{}
	g.values = []any{}
	add := func(v any) {
		if c := canon(v); !seen[c] {
			seen[c] = true
			g.values = append(g.values, v)
		}
	}
	if g.appends {
		old, _ := lookup(a.base, g.loc)
		arr, _ := old.([]any)
		for _, v := range arr {
			seen[canon(v)] = true
		}
	}
	for _, v := range prior {
		add(v)
	}
	for _, at := range atoms {
		g.winners = append(g.winners, at)
		if g.appends {
			add(at.value)
			continue
		}
		for _, v := range at.value.([]any) {
			add(v)
		}
	}
}

// majority keeps the value most agents proposed: one vote per agent (its
// first atom in aggregation order, the heaviest); ties go to the value
// whose voters weigh more in total, then to the heaviest voter, then to
// the smaller canonical JSON.
func majority(g *group, atoms []*atom) {
	type tally struct {
		canon string
		count int
		sum   float64
		max   float64
		first *atom
	}
	voted := map[string]bool{}
	var voters []*atom
	byCanon := map[string]*tally{}
	var tallies []*tally
	for _, at := range atoms {
		agent := at.it.d.AgentID
		if voted[agent] {
			g.losers = append(g.losers, loss{at, LostSameAgent, "the agent's heavier delta here is its vote"})
			continue
		}
		voted[agent] = true
		voters = append(voters, at)
		t, ok := byCanon[at.canon]
		if !ok {
			t = &tally{canon: at.canon, first: at}
			byCanon[at.canon] = t
			tallies = append(tallies, t)
		}
		t.count++
		t.sum += at.it.w
		t.max = max(t.max, at.it.w)
	}
	slices.SortStableFunc(tallies, func(x, y *tally) int {
		return cmp.Or(cmp.Compare(y.count, x.count), cmp.Compare(y.sum, x.sum), cmp.Compare(y.max, x.max), strings.Compare(x.canon, y.canon))
	})
	win := tallies[0]
	g.remove, g.value = win.first.kind == kindRemove, win.first.value
	for _, at := range voters {
		if at.canon == win.canon {
			g.winners = append(g.winners, at)
		} else {
			g.losers = append(g.losers, loss{at, LostOutvoted, fmt.Sprintf("%d of %d agents proposed another value", win.count, len(voters))})
		}
	}
}
