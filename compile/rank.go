package compile

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
)

// Ranking weights and thresholds.
const (
	lexWeight      = 0.65 // with an embedder; lexical alone otherwise
	vecWeight      = 0.35
	entityFloor    = 0.6 // relevance of a candidate about an entity the query names
	minVecRelevant = 0.25
	whyVecMatch    = 0.35
	recencyDays    = 30.0
	importantScore = 0.5
	usefulScore    = 0.2
)

// rankedSections are ordered by relevance to the query.
var rankedSections = []SectionKind{SectionMemory, SectionDocuments}

// rank is step 5: relevance, priority tiers and the activation gate.
func (r *run) rank(ctx context.Context) (int, int, error) {
	in := r.liveCount()
	r.qterms = retrieve.Terms(r.search)
	for _, it := range r.live() {
		if it.origin == fromStore && !r.taskActive(it.obj.Object) {
			r.omit(it, OmitInactiveTask)
		}
	}
	ranked := r.live(rankedSections...)
	gated := r.whyGated()
	for _, it := range append(ranked, gated...) {
		analyze(it)
	}
	if err := r.relevance(ctx, ranked, gated); err != nil {
		return in, 0, err
	}
	r.rankHistory()
	for _, it := range r.live() {
		r.assignTier(it)
		if isSpine(it.obj.Object) {
			// The user's summary spine fills only the budget everything
			// else leaves: it restates memories, which compete on their
			// own. (The latest session summaries are always candidates
			// too, ranked as summaries are: see stateTier.)
			it.tier = TierMinimal
		}
		if it.tier == TierIrrelevant {
			r.omit(it, OmitIrrelevant)
		}
	}
	return in, r.liveCount(), nil
}

// taskActive applies the task-type half of the activation gate: an object
// scoped to task types activates only for one of them.
func (r *run) taskActive(o *tenure.Object) bool {
	return len(o.ApplicableTaskTypes) == 0 || slices.Contains(o.ApplicableTaskTypes, r.req.TaskType)
}

// whyGated returns the live items outside the ranked sections that the
// why_it_matters gate applies to.
func (r *run) whyGated() []*item {
	var out []*item
	for _, it := range r.live() {
		// Static sections are exempt: the cacheable prefix must not depend
		// on the query.
		if it.origin == fromStore && needsWhyMatch(it.obj.Object) && !slices.Contains(rankedSections, it.section) && !staticSections[it.section] {
			out = append(out, it)
		}
	}
	return out
}

// needsWhyMatch: preferences and objects that would become guidance must
// match the query through why_it_matters to activate (overgeneralized
// personalization is the failure this prevents).
func needsWhyMatch(o *tenure.Object) bool {
	return o.WhyItMatters != "" && (o.ObjectType == tenure.TypePreference || o.BehavioralImplication != "")
}

// relevance scores the ranked items and applies the why_it_matters gate.
func (r *run) relevance(ctx context.Context, ranked, gated []*item) error {
	// Terms are analyzed again rather than kept: a document's subunits
	// would hold several times its text in term lists and indexes.
	raw := retrieve.ScoreBM25(len(ranked), func(dst []string, i int) []string { return retrieve.AppendTerms(dst, ranked[i].text) }, r.qterms)
	top := 0.0
	for _, s := range raw {
		top = math.Max(top, s)
	}
	var vecs [][]float32
	var qvec []float32
	emb := r.embedder()
	if emb != nil && len(r.qterms) > 0 && len(ranked)+len(gated) > 0 {
		texts := []string{r.req.Query}
		for _, it := range ranked {
			texts = append(texts, it.text)
		}
		for _, it := range gated {
			texts = append(texts, it.obj.WhyItMatters)
		}
		v, err := emb.Embed(ctx, texts)
		if err == nil && len(v) != len(texts) {
			err = tenure.Errorf(tenure.CodeInternal, "embedder", "returned %d vectors for %d texts", len(v), len(texts))
		}
		if err != nil {
			// The endpoint never fails a compilation: memory is ranked
			// lexically and the trace says so.
			r.embedFailed = true
			r.trace.Warnings = append(r.trace.Warnings, fmt.Sprintf("memory and documents ranked lexically only: the embedder failed (%v)", err))
		} else {
			qvec, vecs = v[0], v[1:]
		}
	}
	// The subunits of a document share its why_it_matters: it is matched
	// once per object, not analyzed again for every subunit.
	whyMatch := map[*tenure.Object]bool{}
	r.freq, r.freqTop = memoryFrequency(ranked)
	for i, it := range ranked {
		if top > 0 {
			it.lex = raw[i] / top
		}
		if qvec != nil {
			it.vec = math.Max(0, float64(retrieve.Cosine(qvec, vecs[i])))
		}
		r.score(it)
		if needsWhyMatch(it.obj.Object) {
			m, ok := whyMatch[it.obj.Object]
			if !ok {
				m = r.whyMatches(it, qvec, nil)
				whyMatch[it.obj.Object] = m
			}
			if !m {
				it.score, it.noFill = 0, true
			}
		}
	}
	for i, it := range gated {
		var v []float32
		if qvec != nil {
			v = vecs[len(ranked)+i]
		}
		if !r.whyMatches(it, qvec, v) {
			it.tier = TierIrrelevant
			r.omit(it, OmitIrrelevant)
		}
	}
	return nil
}

// embedder returns the embedder of memory and documents, nil when there is
// none or the tenant's text must not be sent to it.
func (r *run) embedder() Embedder {
	if f := r.c.opt.EmbedTenant; r.embedFailed || (f != nil && !f(r.p.TenantID)) {
		return nil
	}
	return r.c.opt.Embedder
}

// whyMatches is the semantic half of the activation gate.
func (r *run) whyMatches(it *item, qvec, wvec []float32) bool {
	if len(r.qterms) == 0 {
		return true
	}
	why := retrieve.Terms(it.obj.WhyItMatters)
	for _, t := range why {
		if slices.Contains(r.qterms, t) {
			return true
		}
	}
	return qvec != nil && wvec != nil && retrieve.Cosine(qvec, wvec) >= whyVecMatch
}

// score combines relevance with recency, authority and importance. With no
// query every candidate is fully relevant.
func (r *run) score(it *item) {
	rel := it.lex
	if r.embedder() != nil {
		rel = lexWeight*it.lex + vecWeight*it.vec
	}
	rel = math.Max(rel, entityFloor*it.entity)
	if len(r.qterms) == 0 {
		rel = 1
	}
	if it.lex == 0 && it.entity == 0 && it.vec < minVecRelevant && len(r.qterms) > 0 {
		rel = 0
	}
	o := &it.obj
	if o.Memory != nil && it.section == SectionMemory {
		it.score = r.blend(it, rel)
		return
	}
	age := r.at.Sub(o.LastConfirmed).Hours() / 24
	it.rec = math.Exp(-math.Max(0, age) / recencyDays)
	auth := float64(tenure.LevelRetrieved-o.Level()) / tenure.LevelRetrieved
	imp := o.DecayWeight(r.at)
	if o.Tier == tenure.TierArchival {
		imp *= 0.5
	}
	if o.NeedsReview {
		imp *= 0.8
	}
	it.score = rel * (0.7 + 0.1*it.rec + 0.1*auth + 0.1*imp)
}

// assignTier sets the priority tier of a live item.
func (r *run) assignTier(it *item) {
	o := &it.obj
	switch {
	case it.tier == TierIrrelevant:
	case it.section == SectionSystem || it.section == SectionLate || it.section == SectionPolicy || it.section == SectionTools:
		it.tier = TierCritical
	case it.section == SectionTail:
		it.tier = TierImportant
	case it.section == SectionState:
		it.tier = stateTier(it)
	case o.Layer == tenure.LayerIdentity:
		it.tier = TierCritical
	case o.Layer == tenure.LayerEnvironment:
		it.tier = TierImportant
	case it.score <= 0:
		it.tier = r.fillTier(it)
	case o.IsConstraint && o.Level() <= tenure.LevelUser && r.promotable(o.Object):
		it.tier = TierCritical
	case it.score >= importantScore:
		it.tier = TierImportant
	case it.score >= usefulScore:
		it.tier = TierUseful
	default:
		it.tier = TierMinimal
	}
}

// stateTier ranks task state: pinned items are critical; decisions,
// constraints and the working set always matter; an open question, action
// or risk that shares nothing with the request is only filler, so that a
// long conversation's backlog does not crowd out what the request needs.
func stateTier(it *item) Tier {
	s := it.obj.StateItem
	switch {
	case isSummary(it.obj.Object):
		// The rolling summary is the conversation's story so far; a closed
		// session's summary matters when it is about the request.
		if strings.HasSuffix(it.obj.Key, "/rolling") || it.score > 0 {
			return TierImportant
		}
		return TierMinimal
	case s == nil:
		return TierImportant
	case s.Pinned:
		return TierCritical
	case s.Type == tenure.StateDecision || s.Type == tenure.StateConstraint || it.score > 0:
		return TierImportant
	}
	return TierMinimal
}
