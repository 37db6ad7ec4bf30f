package extract

import (
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/slot"
)

// changeRe is a report that a value was changed: a verb of change and,
// within a few words, "to" and what it was changed to ("Finance raised
// the budget ceiling to 95k euros", "we pushed the beta launch to May
// 18", "the standup moved to 10:30").
var changeRe = mustPattern(`(?i)\b(?:rais(?:e|es|ed|ing)|lower(?:s|ed|ing)?|increas(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|reduc(?:e|es|ed|ing)|cut(?:s|ting)?|push(?:es|ed|ing)?|mov(?:e|es|ed|ing)|bump(?:s|ed|ing)?|drop(?:s|ped|ping)?|chang(?:e|es|ed|ing)|shift(?:s|ed|ing)?|extend(?:s|ed|ing)?|postpon(?:e|es|ed|ing)|delay(?:s|ed|ing)?|reschedul(?:e|es|ed|ing)|slip(?:s|ped|ping)?|slid|brought\s+forward|bring(?:s|ing)?\s+forward|up(?:s|ped|ping)|(?:go|goes|went|gone|going)\s+(?:up|down))\b(?:\s+\S+){0,6}?\s+(to|until|till)\s+\S`)

// tentativeRe is a change proposed, wished, asked or denied rather than
// made: "we might push the launch to May", "should we move it to Friday".
// "may" is the modal only in lowercase: "to May 18" is a date.
var tentativeRe = mustPattern(`\bmay\b|(?i:\b(?:might|could|maybe|perhaps|should|shall|would|if|unless|whether|considering|thinking|propose|proposed|suggest|suggested|want\s+to|wants\s+to|hoping|hope|not|never|didn't|don't|doesn't|won't|wasn't|weren't|haven't|hasn't|no\s+longer|can't|cannot)\b)`)

// changeLabelRe is a short label a report opens with, whatever the case
// after it: "Update: we pushed …", "Good news: finance raised …".
var changeLabelRe = mustPattern(`^(?:[A-Za-z][\p{L}-]*\s+){0,2}[A-Za-z][\p{L}-]*:\s+(.+)$`)

// changeTypes are the item types a reported change of value rewrites:
// what was chosen, required or planned. A risk or a question is not
// changed by a later value; it is answered or it passes.
var changeTypes = map[tenure.StateType]bool{tenure.StateDecision: true, tenure.StateConstraint: true, tenure.StateAction: true}

// changeTarget is an item a later report may change: one of the thread's
// active items, or one found earlier in the batch.
type changeTarget struct {
	item tenure.StateItem
	// analysis is read when a report first needs it: most batches hold
	// no report of a change.
	analysis *slot.Analysis
}

// changeTargets collects the items of a batch a report of change may
// refer to, analysed once each.
type changeTargets struct {
	list []changeTarget
}

func newChangeTargets(existing []tenure.StateItem) *changeTargets {
	ct := &changeTargets{}
	for _, it := range existing {
		ct.add(it)
	}
	return ct
}

func (ct *changeTargets) add(it tenure.StateItem) {
	if !changeTypes[it.Type] || (it.Status != "active" && it.Status != "open") {
		return
	}
	ct.list = append(ct.list, changeTarget{item: it})
}

// matchChange reads s as a report that one of the known items' values
// changed: a verb of change with "to", said as done or decided (not asked,
// proposed or denied), sharing a noun with exactly one known item (more
// than any other shares) and holding a value of the same kind as that
// item's, and a different one. The report is an item of the known item's
// type, about what it is about, with its owner, superseding it: "The
// budget can't go over 80k euros" … "Finance raised the budget ceiling to
// 95k euros" is the constraint's new value, whatever the sentence alone
// would be read as.
func (r *Rules) matchChange(mc *messageContext, s sentence, ct *changeTargets) (found, *tenure.StateItem, bool) {
	if len(ct.list) == 0 || s.question || mc.joking || !changeRe.MatchString(s.text) {
		return found{}, nil, false
	}
	t := discourseRe.ReplaceAllString(s.text, "")
	if m := changeLabelRe.FindStringSubmatch(t); m != nil {
		t = m[1]
	}
	t = tidy(t)
	if t == "" || tentativeRe.MatchString(t) || !changeRe.MatchString(t) {
		return found{}, nil, false
	}
	said := t
	t, _ = r.datesExplicit(t, mc.msg.CreatedAt)
	var best *changeTarget
	bestShared, tie := 0, false
	reports := map[tenure.StateType]*slot.Analysis{}
	for i := range ct.list {
		c := &ct.list[i]
		a := reports[c.item.Type]
		if a == nil {
			x := slot.Analyze(c.item.Type, t)
			a, reports[c.item.Type] = &x, &x
		}
		if len(a.Facets) == 0 {
			continue
		}
		if c.analysis == nil {
			x := slot.Analyze(c.item.Type, c.item.Text)
			c.analysis = &x
		}
		if !slot.ValueChanged(c.analysis.Facets, a.Facets) {
			continue
		}
		n := sharedNouns(c.analysis.Frame, a.Frame)
		switch {
		case n == 0 || n < bestShared:
		case n == bestShared:
			tie = true
		default:
			best, bestShared, tie = c, n, false
		}
	}
	if best == nil || tie {
		return found{}, nil, false
	}
	f := found{typ: best.item.Type, text: capitalize(said), conf: tenure.ConfidenceHigh}
	if f.typ == tenure.StateAction {
		f.owner = best.item.Owner
		// What a task was moved to is when it is due: "pushed the launch
		// to May 18" is "launch by May 18".
		if m := changeRe.FindStringSubmatchIndex(said); m != nil {
			_, f.due = r.datesExplicit(said[:m[2]]+"by"+said[m[3]:], mc.msg.CreatedAt)
		}
	}
	return f, &best.item, true
}

// sharedNouns counts the words both frames hold that are not verbs in
// either: what the report and the item are both about.
func sharedNouns(old, report []slot.Word) int {
	n := 0
	for _, o := range old {
		if o.Verb {
			continue
		}
		for _, w := range report {
			if !w.Verb && w.Stem == o.Stem {
				n++
				break
			}
		}
	}
	return n
}
