package compile

import (
	"context"
	"math"
	"strings"
)

// emit is step 10: the envelope and the trace.
func (r *run) emit(context.Context) (int, int, error) {
	env := Envelope{Budget: r.req.Budget, Tokenizer: r.counter.Name(), Sections: []Section{}}
	packed := map[*item]bool{}
	for _, pl := range r.plans {
		if pl.text != "" {
			// Section counts were estimates while packing; report exact ones.
			pl.tokens = r.counter.Counter.Count(pl.text)
		}
		for _, i := range pl.packed {
			for _, it := range pl.blocks[i].items {
				packed[it] = true
				r.trace.Compiled = append(r.trace.Compiled, r.compiledEntry(it))
			}
		}
		if pl.kind == SectionWorkflow {
			r.traceWorkflow(pl)
		}
		if pl.kind == SectionMemory {
			r.traceCards(pl)
		}
		r.trace.Sections = append(r.trace.Sections, SectionTrace{Kind: pl.kind, Allocated: pl.allocated,
			Tokens: pl.tokens, Items: len(pl.packed), Truncated: pl.truncated && len(pl.blocks) > 0})
		if pl.text == "" {
			continue
		}
		s := Section{Kind: pl.kind, Role: pl.role, Text: pl.text, Tokens: pl.tokens, Static: staticSections[pl.kind],
			Truncated: pl.truncated, Items: len(pl.packed)}
		s.CacheBreakpoint = s.Static
		if pl.kind == SectionTail {
			for j := len(pl.packed) - 1; j >= 0; j-- {
				for _, it := range pl.blocks[pl.packed[j]].items {
					m := *it.msg
					m.Content = blockText(strings.TrimSpace(m.Content))
					if m.Speaker != "" {
						m.Speaker = speakerLabel(m.Speaker)
					}
					if m.Role == "tool" {
						m.Content = it.line // contained
					}
					s.Messages = append(s.Messages, m)
				}
			}
		}
		env.Sections = append(env.Sections, s)
	}
	for _, it := range r.live() {
		if !packed[it] && it.section != SectionTurn {
			r.omit(it, OmitBudget)
		}
	}
	env.Tokens = r.total // counted exactly by fitTotal
	prefix := env.StaticPrefix()
	if prefix != "" {
		env.StaticPrefixTokens = r.counter.Counter.Count(prefix)
	}
	env.DynamicSuffixTokens = env.Tokens - env.StaticPrefixTokens
	env.CacheKey = cacheKey(prefix)
	r.env = env

	r.trace.CompiledPromptTokens = env.Tokens
	r.trace.Retrieval.CompiledCount = len(r.trace.Compiled)
	r.trace.Cache = CacheMeta{PromptCacheKey: env.CacheKey, StaticPrefixTokens: env.StaticPrefixTokens,
		DynamicSuffixTokens: env.DynamicSuffixTokens, Breakpoints: []SectionKind{}}
	for _, s := range env.Sections {
		if s.CacheBreakpoint {
			r.trace.Cache.Breakpoints = append(r.trace.Cache.Breakpoints, s.Kind)
		}
	}
	r.recordUses()
	return len(packed), len(env.Sections), nil
}

func (r *run) compiledEntry(it *item) CompiledObject {
	o := &it.obj
	sa, cs := o.Trust()
	return CompiledObject{ObjectID: o.ObjectID, ObjectType: o.ObjectType, AuthorityLevel: o.Level(),
		SourceOrigin: o.SourceOrigin, SourceAuthority: sa, ConfidenceScore: cs,
		SecurityClassification: o.SecurityClassification, ContradictionStatus: o.ContradictionStatus,
		PriorityTier: it.tier, CompiledAs: it.as, Section: it.section, Score: math.Round(it.score*1000) / 1000,
		RescuedFrom: it.rescuedFrom, AttachedTo: it.attachedTo, Fill: it.fill}
}
