package snapshot

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/theory/jsonpath/spec"
)

// Result is what closing a round produces.
type Result struct {
	// State is the new snapshot's state.
	State map[string]any
	// Report says what changed, who lost and why, what was clipped and
	// whether the workflow converged.
	Report Report
	// Deltas are the round's deltas in aggregation order (weight
	// descending, then agent, value and id), with Status and Reason set.
	Deltas []Delta
}

// item is a delta being aggregated.
type item struct {
	d     *Delta
	w     float64
	canon string // canonical value ("" for remove)
	atoms []*atom
	// invalid holds why the delta could not be expanded (it then loses
	// every run).
	invalid string
}

// atom is one change of one delta at one location.
type atom struct {
	it     *item
	loc    spec.NormalizedPath
	key    string
	kind   atomKind
	value  any
	canon  string
	rebind bool
}

func (a *atom) ref() DeltaRef {
	return DeltaRef{DeltaID: a.it.d.ID, AgentID: a.it.d.AgentID, Weight: a.it.w}
}

// removeCanon stands for a removal among values being compared.
const removeCanon = "\x00remove"

// Aggregate closes a round: it applies the round's deltas to base (its
// previous snapshot's state, left unchanged) with the workflow's
// strategies, enforces the state's size limit and caps, and reports what
// changed. Deltas must have their ids (see DeltaID) and have passed Check
// and Expand against base; one that no longer expands loses. The result
// depends only on base, the set of deltas and w, not on their order.
func Aggregate(base map[string]any, deltas []Delta, w Workflow) (Result, error) {
	w = w.WithDefaults()
	cfg, err := w.config()
	if err != nil {
		return Result{}, err
	}
	items := prepare(base, deltas, w.MaxStateSize)
	a := &aggregation{cfg: cfg, base: base, items: items}
	run := a.run(nil)
	if Size(run.state) > w.MaxStateSize {
		run = a.fit()
	}
	res := Result{State: run.state, Deltas: make([]Delta, len(items))}
	rep := &res.Report
	rep.Changes = diff(base, run.state)
	for _, c := range rep.Changes {
		rep.ChangedBytes += len(c.Before) + len(c.After)
	}
	size := Size(run.state)
	rep.ChangeRatio = float64(rep.ChangedBytes) / float64(max(1, size))
	rep.Converged = len(rep.Changes) == 0 || (w.ConvergenceThreshold > 0 && rep.ChangeRatio < w.ConvergenceThreshold)
	rep.Conflicts, rep.Clips, rep.Rebinds = run.conflicts, run.clips, run.rebinds
	if rep.Changes == nil {
		rep.Changes = []Change{}
	}
	if rep.Conflicts == nil {
		rep.Conflicts = []Conflict{}
	}
	if rep.Clips == nil {
		rep.Clips = []Clip{}
	}
	if rep.Rebinds == nil {
		rep.Rebinds = []Rebind{}
	}
	for i, it := range items {
		d := *it.d
		d.Status, d.Reason = run.status(it)
		res.Deltas[i] = d
		rep.Deltas++
		switch d.Status {
		case StatusApplied:
			rep.Applied++
		case StatusPartial:
			rep.Partial++
		case StatusLost:
			rep.Lost++
		case StatusClipped:
			rep.Clipped++
		case StatusRejected:
			rep.Rejected++
		}
	}
	return res, nil
}

// prepare expands every delta against base and orders them: weight
// descending, then agent id, canonical value and id ascending.
func prepare(base map[string]any, deltas []Delta, maxSize int) []*item {
	items := make([]*item, len(deltas))
	paths := map[string]*Path{}
	for i := range deltas {
		d := &deltas[i]
		it := &item{d: d, w: d.W()}
		items[i] = it
		p, ok := paths[d.Path]
		if !ok {
			p, _ = ParsePath("path", d.Path)
			paths[d.Path] = p
		}
		var ts []target
		var err error
		if p == nil {
			err = fmt.Errorf("not a JSONPath")
		} else {
			ts, err = expand(base, d, p, maxSize)
		}
		if err != nil {
			it.invalid, it.canon = "invalid: "+err.Error(), valueCanon(*d)
			continue
		}
		if d.Operation != OpRemove && len(ts) > 0 {
			it.canon = canon(ts[0].value) // valueCanon's, from the value decoded once
		}
		seen := map[string]bool{}
		for _, t := range ts {
			key := norm(t.loc)
			if seen[key] {
				continue
			}
			seen[key] = true
			at := &atom{it: it, loc: t.loc, key: key, kind: t.kind, value: t.value, rebind: t.rebind}
			at.canon = it.canon
			if t.kind == kindRemove {
				at.canon = removeCanon
			}
			it.atoms = append(it.atoms, at)
		}
	}
	slices.SortStableFunc(items, compareItems)
	return items
}

// compareItems is the aggregation order.
func compareItems(a, b *item) int {
	return cmp.Or(cmp.Compare(b.w, a.w), strings.Compare(a.d.AgentID, b.d.AgentID), strings.Compare(a.canon, b.canon),
		strings.Compare(a.d.ID, b.d.ID))
}

// aggregation is one round's close.
type aggregation struct {
	cfg   *config
	base  map[string]any
	items []*item
}

// verdict is what became of an atom in a run.
type verdict struct {
	applied bool
	partial bool // applied, with some members lost
	loss    *Loser
}

// runResult is one application of a subset of the round's deltas.
type runResult struct {
	state     map[string]any
	verdicts  map[*atom]verdict
	excluded  map[*item]Status
	conflicts []Conflict
	clips     []Clip
	rebinds   []Rebind
	// holders lists the kept groups, whose winners applied at their
	// locations.
	holders []*group
}

// status folds an item's atom verdicts into its delta's status.
func (r *runResult) status(it *item) (Status, string) {
	if s, ok := r.excluded[it]; ok {
		return s, LostStateSize
	}
	if it.invalid != "" {
		return StatusLost, it.invalid
	}
	applied, lost, partial := 0, 0, false
	reason := ""
	for _, a := range it.atoms {
		v := r.verdicts[a]
		switch {
		case v.applied:
			applied++
			partial = partial || v.partial
			if v.partial && reason == "" {
				reason = LostOutweighed
			}
		default:
			lost++
			if reason == "" && v.loss != nil {
				reason = v.loss.Reason
			}
		}
	}
	switch {
	case applied == 0:
		return StatusLost, reason
	case lost > 0 || partial:
		return StatusPartial, reason
	}
	return StatusApplied, ""
}

// group is the atoms of the round at one location: sets and removes
// compete for the location (a slot), additions to an array at it form a
// group of their own.
type group struct {
	key      string
	loc      spec.NormalizedPath
	appends  bool
	atoms    []*atom
	strategy Strategy

	winners []*atom
	remove  bool
	value   any   // the value set (slot groups)
	values  []any // the values appended (append groups)
	partial map[*atom][]string
	losers  []loss
	// blocker is the group whose heavier change overlapped this one.
	blocker *group
}

type loss struct {
	a      *atom
	reason string
	detail string
}

// strength orders groups for the overlap check: the weight of their
// heaviest winner.
func (g *group) strength() float64 {
	s := -1.0
	for _, a := range g.winners {
		s = max(s, a.it.w)
	}
	return s
}

// run applies the deltas not in excluded to a copy of the base.
func (a *aggregation) run(excluded map[*item]Status) *runResult {
	r := &runResult{state: CloneState(a.base), verdicts: map[*atom]verdict{}, excluded: excluded}
	byKey := map[string]*group{}
	var groups []*group
	for _, it := range a.items {
		if _, out := excluded[it]; out {
			continue
		}
		for _, at := range it.atoms {
			k := at.key
			if at.kind == kindAppend {
				k += "\x00+"
			}
			g, ok := byKey[k]
			if !ok {
				g = &group{key: at.key, loc: at.loc, appends: at.kind == kindAppend, strategy: a.cfg.strategyFor(at.loc)}
				byKey[k] = g
				groups = append(groups, g)
			}
			g.atoms = append(g.atoms, at)
		}
	}
	for _, g := range groups {
		a.decide(g)
	}
	// Heavier changes first; among equals the shallower (the ancestor),
	// then by location. A group overlapping a change already kept loses.
	slices.SortStableFunc(groups, func(x, y *group) int {
		return cmp.Or(cmp.Compare(y.strength(), x.strength()), cmp.Compare(len(x.loc), len(y.loc)),
			strings.Compare(x.key, y.key), cmpBool(x.appends, y.appends))
	})
	var kept []*group
	idx := newKeptIndex()
	for _, g := range groups {
		if len(g.winners) == 0 {
			continue
		}
		if g.blocker = idx.overlapping(g); g.blocker != nil {
			for _, w := range g.winners {
				g.losers = append(g.losers, loss{w, LostOverlap, "overlaps the change at " + g.blocker.key + ", held by a heavier delta"})
			}
			g.winners, g.partial = nil, nil
			continue
		}
		kept = append(kept, g)
		idx.add(g)
	}
	a.apply(r, kept)
	for _, g := range groups {
		for _, w := range g.winners {
			r.verdicts[w] = verdict{applied: true, partial: len(g.partial[w]) > 0}
		}
		for _, l := range g.losers {
			if _, won := r.verdicts[l.a]; !won {
				r.verdicts[l.a] = verdict{loss: &Loser{DeltaRef: l.a.ref(), Reason: l.reason, Detail: l.detail}}
			}
		}
	}
	slices.SortStableFunc(groups, func(x, y *group) int { return cmp.Or(strings.Compare(x.key, y.key), cmpBool(x.appends, y.appends)) })
	for _, g := range groups {
		if c, ok := conflictOf(g); ok {
			r.conflicts = append(r.conflicts, c)
		}
	}
	a.enforceCaps(r)
	return r
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// keptIndex finds, among the groups kept so far, one whose change cannot
// be made beside another group's: a set or removal above or below it, or
// above or at an array it appends to (appending never disturbs the
// array's elements). It looks up a location's prefixes, not every kept
// group: a round's thousands of bindings are thousands of groups.
type keptIndex struct {
	// slots and appends map kept groups' locations to them; slotsBelow
	// and appendsBelow map every proper prefix of those locations to one
	// of the groups under it.
	slots, appends, slotsBelow, appendsBelow map[string]*group
}

func newKeptIndex() *keptIndex {
	return &keptIndex{slots: map[string]*group{}, appends: map[string]*group{}, slotsBelow: map[string]*group{}, appendsBelow: map[string]*group{}}
}

func (x *keptIndex) add(g *group) {
	at, below := x.slots, x.slotsBelow
	if g.appends {
		at, below = x.appends, x.appendsBelow
	}
	at[g.key] = g
	for i := range len(g.loc) {
		if p := norm(g.loc[:i]); below[p] == nil {
			below[p] = g
		}
	}
}

// overlapping returns a kept group g cannot be made beside, or nil.
func (x *keptIndex) overlapping(g *group) *group {
	for i := range len(g.loc) + 1 {
		// A set or removal at or above g's location.
		if k := x.slots[norm(g.loc[:i])]; k != nil && (i < len(g.loc) || g.appends) {
			return k
		}
	}
	if g.appends {
		return nil
	}
	for _, k := range []*group{x.slotsBelow[g.key], x.appends[g.key], x.appendsBelow[g.key]} {
		if k != nil {
			return k
		}
	}
	return nil
}

// apply makes the kept groups' changes: sets, then appends, then
// removals from the deepest and highest index down, so that removing an
// element never moves another change's location.
func (a *aggregation) apply(r *runResult, kept []*group) {
	slices.SortStableFunc(kept, func(x, y *group) int { return strings.Compare(x.key, y.key) })
	for _, g := range kept {
		if !g.appends && !g.remove {
			setAt(r.state, g.loc, clone(g.value))
		}
	}
	for _, g := range kept {
		if g.appends && len(g.values) > 0 {
			vs := make([]any, len(g.values))
			for i, v := range g.values {
				vs[i] = clone(v)
			}
			appendAt(r.state, g.loc, vs)
		}
	}
	var removals []*group
	for _, g := range kept {
		if g.remove {
			removals = append(removals, g)
		}
	}
	slices.SortStableFunc(removals, func(x, y *group) int { return y.loc.Compare(x.loc) })
	for _, g := range removals {
		removeAt(r.state, g.loc)
	}
	r.holders = kept
	for _, g := range kept {
		for _, w := range g.winners {
			if !w.rebind {
				continue
			}
			term := string(w.loc[1].(spec.Name))
			old, _ := lookup(a.base, w.loc)
			if w.canon != canon(old) && g.value != nil && canon(g.value) == w.canon {
				from, _ := old.(string)
				to, _ := g.value.(string)
				r.rebinds = append(r.rebinds, Rebind{Term: term, From: from, To: to, DeltaID: w.it.d.ID, AgentID: w.it.d.AgentID,
					Reason: w.it.d.Provenance})
				break
			}
		}
	}
}

// conflictOf records a group's losers.
func conflictOf(g *group) (Conflict, bool) {
	var losers []Loser
	for _, l := range g.losers {
		losers = append(losers, Loser{DeltaRef: l.a.ref(), Reason: l.reason, Detail: l.detail})
	}
	for _, w := range g.winners {
		if members := g.partial[w]; len(members) > 0 {
			losers = append(losers, Loser{DeltaRef: w.ref(), Reason: LostOutweighed,
				Detail: "merged, but for members held by heavier deltas: " + strings.Join(members, ", ")})
		}
	}
	if len(losers) == 0 {
		return Conflict{}, false
	}
	winners := g.winners
	if g.blocker != nil {
		winners = g.blocker.winners
	}
	c := Conflict{Path: g.key, Strategy: g.strategy, Winners: []DeltaRef{}, Losers: losers}
	for _, w := range winners {
		c.Winners = append(c.Winners, w.ref())
	}
	return c, true
}

// enforceCaps evicts the oldest entities and rules beyond their caps.
func (a *aggregation) enforceCaps(r *runResult) {
	for _, c := range []struct {
		key string
		cap int
	}{{KeyEntities, a.cfg.w.MaxEntities}, {KeyRules, a.cfg.w.MaxRules}} {
		arr, _ := r.state[c.key].([]any)
		if c.cap <= 0 || len(arr) <= c.cap {
			continue
		}
		n := len(arr) - c.cap
		for i := range n {
			r.clips = append(r.clips, Clip{Strategy: EvictOldest, Path: norm(spec.Normalized(spec.Name(c.key), spec.Index(i))),
				Bytes: len(canon(arr[i])) + 1, Detail: fmt.Sprintf("beyond the cap of %d %s", c.cap, c.key)})
		}
		r.state[c.key] = slices.Clone(arr[n:])
	}
}

// fit brings the state under its size limit with the workflow's clipping
// strategies (or, with onViolation reject, by rejecting the lowest-weight
// deltas alone).
func (a *aggregation) fit() *runResult {
	w := a.cfg.w
	var before []ClipStrategy
	if w.OnViolation == OnViolationClip {
		before = slices.DeleteFunc(slices.Clone(w.Clipping), func(c ClipStrategy) bool { return c == DropLowestWeight })
	}
	status := StatusClipped
	if w.OnViolation == OnViolationReject {
		status = StatusRejected
	}
	// Deltas are left out lightest first: the reverse of the aggregation
	// order.
	order := slices.Clone(a.items)
	slices.Reverse(order)
	try := func(k int) *runResult {
		excluded := map[*item]Status{}
		for _, it := range order[:k] {
			excluded[it] = status
		}
		r := a.run(excluded)
		for _, c := range before {
			switch c {
			case TruncateStrings:
				a.truncate(r)
			case EvictOldest:
				a.evict(r)
			}
		}
		return r
	}
	fits := func(r *runResult) bool { return Size(r.state) <= w.MaxStateSize }
	r := try(0)
	if fits(r) {
		return r
	}
	// Bisection for the fewest deltas to leave out: leaving out all of
	// them leaves the previous state, which fit.
	lo, hi := 0, len(order)
	best := try(hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if m := try(mid); fits(m) {
			hi, best = mid, m
		} else {
			lo = mid
		}
	}
	strategy := DropLowestWeight
	detail := "left out, lightest first, to keep the state under %d bytes"
	if status == StatusRejected {
		detail = "rejected, lightest first: the state would exceed %d bytes (onViolation reject)"
	}
	for _, it := range order[:hi] {
		best.clips = append(best.clips, Clip{Strategy: strategy, Path: it.d.Path, DeltaIDs: []string{it.d.ID},
			Detail: fmt.Sprintf(detail, w.MaxStateSize)})
	}
	return best
}

// truncate cuts the longest strings of the state (never the query or a
// binding) to MaxStringBytes with a marker, longest first, until the
// state fits.
func (a *aggregation) truncate(r *runResult) {
	limit, maxLen := a.cfg.w.MaxStateSize, a.cfg.w.MaxStringBytes
	size := Size(r.state)
	if size <= limit {
		return
	}
	type str struct {
		loc spec.NormalizedPath
		s   string
	}
	var long []str
	var walk func(v any, loc spec.NormalizedPath)
	walk = func(v any, loc spec.NormalizedPath) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(x) {
				if len(loc) == 0 && (k == KeyQuery || k == KeyBindings) {
					continue
				}
				walk(x[k], append(slices.Clip(loc), spec.Name(k)))
			}
		case []any:
			for i, e := range x {
				walk(e, append(slices.Clip(loc), spec.Index(i)))
			}
		case string:
			if len(x) > maxLen+len(marker(len(x))) {
				long = append(long, str{loc, x})
			}
		}
	}
	walk(r.state, nil)
	slices.SortStableFunc(long, func(x, y str) int { return cmp.Compare(len(y.s), len(x.s)) })
	for _, l := range long {
		if size <= limit {
			return
		}
		cut := cutUTF8(l.s, maxLen)
		short := cut + marker(len(l.s)-len(cut))
		setAt(r.state, l.loc, short)
		freed := len(canon(l.s)) - len(canon(short))
		size -= freed
		r.clips = append(r.clips, Clip{Strategy: TruncateStrings, Path: norm(l.loc), Bytes: freed, DeltaIDs: r.contributors(l.loc),
			Detail: fmt.Sprintf("cut from %d to %d bytes", len(l.s), len(cut))})
	}
}

// marker ends a truncated string.
func marker(n int) string { return " …[clipped " + strconv.Itoa(n) + " bytes]" }

// cutUTF8 returns s's first n bytes, backing off to a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// evict removes the oldest entities and rules, from the longer
// collection first, until the state fits.
func (a *aggregation) evict(r *runResult) {
	limit := a.cfg.w.MaxStateSize
	size := Size(r.state)
	evicted := map[string]int{}
	for size > limit {
		ents, _ := r.state[KeyEntities].([]any)
		rules, _ := r.state[KeyRules].([]any)
		key, arr := KeyEntities, ents
		if len(rules) > len(ents) {
			key, arr = KeyRules, rules
		}
		if len(arr) == 0 {
			return
		}
		freed := len(canon(arr[0]))
		if len(arr) > 1 {
			freed++ // the comma
		}
		loc := spec.Normalized(spec.Name(key), spec.Index(evicted[key]))
		r.clips = append(r.clips, Clip{Strategy: EvictOldest, Path: norm(loc), Bytes: freed,
			DeltaIDs: r.contributors(spec.Normalized(spec.Name(key))), Detail: "the oldest " + strings.TrimSuffix(key, "s")})
		evicted[key]++
		r.state[key] = slices.Clone(arr[1:])
		size -= freed
	}
}

// contributors lists the round's deltas that wrote at, above or below a
// location, by id.
func (r *runResult) contributors(loc spec.NormalizedPath) []string {
	var ids []string
	for _, g := range r.holders {
		if !related(g.loc, loc) {
			continue
		}
		for _, w := range g.winners {
			if !slices.Contains(ids, w.it.d.ID) {
				ids = append(ids, w.it.d.ID)
			}
		}
	}
	return ids
}
