package compile_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// rule builds a binding policy rule at a level, written by a rank.
func rule(id string, level int, rank, text string) tenure.Object {
	return obj(id, text, func(o *tenure.Object) {
		o.Layer, o.IsConstraint, o.Binding, o.AuthorityLevel, o.AuthorAuthority = tenure.LayerPolicy, true, true, tenure.Ptr(level), rank
	})
}

func TestBindingRulesAreMandatory(t *testing.T) {
	var src sliceSource
	for i := range 12 {
		src = append(src, rule(fmt.Sprintf("dev-%02d", i), 1, "manager", fmt.Sprintf("rule %d: never discuss unreleased product number %d with customers", i, i)))
	}
	src = append(src, rule("platform", 0, "policy", "never reveal credentials"))
	req := compile.Request{Principal: reader, Query: "pricing", Budget: 120}
	_, _, err := newCompiler(src).Compile(context.Background(), req)
	if tenure.ErrorCode(err) != tenure.CodeTooLarge || tenure.ErrorField(err) != "budget" || !strings.Contains(err.Error(), "policy section") {
		t.Fatalf("err = %v; want too_large on budget naming the policy section", err)
	}

	req.RulesOverflow = compile.RulesDrop
	env, tr, err := newCompiler(src).Compile(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if env.Tokens > req.Budget {
		t.Fatalf("%d tokens > budget %d", env.Tokens, req.Budget)
	}
	mustContain(t, env.Text(), "never reveal credentials")
	if len(tr.Warnings) == 0 || omittedReason(tr, "dev-11") != compile.OmitRuleOverBudget {
		t.Errorf("dropped rules not reported: warnings %q, dev-11 omitted as %q", tr.Warnings, omittedReason(tr, "dev-11"))
	}

	req.RulesOverflow = "maybe"
	if _, _, err := newCompiler(src).Compile(context.Background(), req); tenure.ErrorField(err) != "rules_overflow" {
		t.Errorf("bad rules_overflow: %v", err)
	}
}

// TestRuleOrderProperty: over random rule sets and budgets, the rules in
// the envelope are always a prefix of the rules in authority-then-rank
// order (a lower rule never survives while a higher one is dropped), every
// rule at authority 0-1 is present unless the compilation failed (or, when
// dropping is allowed, said so), and the budget is never exceeded.
func TestRuleOrderProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	ranks := tenure.DefaultHierarchy.Ranks
	h := tenure.DefaultHierarchy
	for trial := range 300 {
		var src sliceSource
		n := 1 + rng.IntN(25)
		for i := range n {
			words := strings.Repeat("clause ", 1+rng.IntN(20))
			src = append(src, rule(fmt.Sprintf("r%02d", i), rng.IntN(3), ranks[rng.IntN(len(ranks))], fmt.Sprintf("zr%02d %s", i, words)))
		}
		order := slices.Clone(src)
		slices.SortStableFunc(order, func(a, b tenure.Object) int {
			if a.Level() != b.Level() {
				return a.Level() - b.Level()
			}
			if d := h.Rank(b.AuthorAuthority) - h.Rank(a.AuthorAuthority); d != 0 {
				return d
			}
			return strings.Compare(a.Key, b.Key)
		})
		req := compile.Request{Principal: reader, Query: "anything", Budget: 20 + rng.IntN(800)}
		if trial%2 == 1 {
			req.RulesOverflow = compile.RulesDrop
		}
		env, tr, err := newCompiler(src).Compile(context.Background(), req)
		if err != nil {
			if tenure.ErrorCode(err) == tenure.CodeTooLarge || tenure.ErrorField(err) == "budget" {
				if req.RulesOverflow == compile.RulesDrop && tenure.ErrorCode(err) == tenure.CodeTooLarge {
					t.Fatalf("trial %d: drop mode failed: %v", trial, err)
				}
				continue
			}
			t.Fatalf("trial %d: %v", trial, err)
		}
		if env.Tokens > req.Budget {
			t.Fatalf("trial %d: %d tokens > budget %d", trial, env.Tokens, req.Budget)
		}
		text := env.Text()
		present := make([]bool, len(order))
		for i, o := range order {
			present[i] = strings.Contains(text, strings.Fields(o.Content)[0]+" ")
		}
		for i := 1; i < len(order); i++ {
			if present[i] && !present[i-1] {
				t.Fatalf("trial %d: %s (level %d, %s) compiled while %s (level %d, %s) was dropped",
					trial, order[i].ObjectID, order[i].Level(), order[i].AuthorAuthority, order[i-1].ObjectID, order[i-1].Level(), order[i-1].AuthorAuthority)
			}
		}
		for i, o := range order {
			if o.Level() <= tenure.LevelDeveloper && !present[i] &&
				(req.RulesOverflow != compile.RulesDrop || omittedReason(tr, o.ObjectID) != compile.OmitRuleOverBudget) {
				t.Fatalf("trial %d: binding rule %s (level %d) missing without a failure or a warning", trial, o.ObjectID, o.Level())
			}
		}
	}
}
