package compile_test

import (
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// The three test vectors of state-layers.md, end to end through compile.
func TestVectorBasicSupersession(t *testing.T) {
	f := newFixture(t)
	old := f.put(owner, tenure.Object{Key: "status_v1", Value: val("approved")})
	f.put(owner, tenure.Object{Key: "status_v2", Value: val("cancelled"), Supersedes: "status_v1"})
	env, tr := f.compile(compile.Request{Principal: owner, Query: "What is the current status?", Budget: 500})
	mustContain(t, env.Text(), "cancelled")
	mustNotContain(t, env.Text(), "approved")
	if got := omittedReason(tr, old.Object.ObjectID); got != compile.OmitSuperseded {
		t.Errorf("status_v1 omitted as %q, want superseded", got)
	}
}

func TestVectorEmphaticRepetition(t *testing.T) {
	f := newFixture(t)
	for range 3 {
		f.put(owner, tenure.Object{Key: "order_v1", Value: val("approved")})
	}
	f.put(owner, tenure.Object{Key: "order_v2", Value: val("cancelled"), Supersedes: "order_v1"})
	env, _ := f.compile(compile.Request{Principal: owner, Query: "Should we proceed with the order?", Budget: 500})
	mustContain(t, env.Text(), "cancelled")
	mustNotContain(t, env.Text(), "approved")
}

func TestVectorAuthorityOverride(t *testing.T) {
	f := newFixture(t)
	policy := f.put(cfo, tenure.Object{Key: "discount.policy", Value: val("max 15%"), Source: "CFO",
		AuthorityLevel: tenure.Ptr(1), IsConstraint: true, ConstraintType: tenure.ConstraintPolicy})
	claim := f.put(intern, tenure.Object{Key: "discount.policy", Value: val("Let's offer 25%")})
	if claim.Outcome != tenure.OutcomeOverridden {
		t.Fatalf("intern claim outcome %s", claim.Outcome)
	}
	env, tr := f.compile(compile.Request{Principal: intern, Query: "Can we offer 25%?", Budget: 500})
	mustContain(t, env.Text(), "max 15%")
	mustNotContain(t, env.Text(), "25%")
	if got := compiledAs(tr, policy.Object.ObjectID); got != compile.AsHardConstraint {
		t.Errorf("CFO policy compiled as %q, want hard_constraint", got)
	}
	if s, _ := env.Section(compile.SectionPolicy); !s.Static {
		t.Error("policy section is not part of the static prefix")
	}
}
