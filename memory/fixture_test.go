package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// fixtureMemory is a memory of the ablation fixture: written ageDays
// before the questions are asked.
type fixtureMemory struct {
	kind    tenure.MemoryKind
	ref     string
	attr    string
	content string
	imp     int
	pinned  bool
	ageDays int
}

// memoryFixture is a user's memories: core identity, the people in the
// user's life (several facts each), a project, and old trivia.
var memoryFixture = []fixtureMemory{
	{tenure.MemoryProfile, "person:ada", "name", "My name is Ada Lovelace", 3, false, 300},
	{tenure.MemoryProfile, "person:ada", "allergic_to", "Ada is allergic to penicillin", 2, true, 200},
	{tenure.MemoryProfile, "person:ada", "lives_in", "Ada lives in Lisbon", 2, false, 120},
	{tenure.MemoryProfile, "person:ada", "likes:jazz", "Ada likes jazz", 1, false, 90},
	{tenure.MemoryPeople, "person:john", "relation", "John is Ada's cofounder", 2, false, 100},
	{tenure.MemoryPeople, "person:john", "role", "John handles the backend", 2, false, 60},
	{tenure.MemoryPeople, "person:john", "lives_in", "John lives in Porto", 1, false, 50},
	{tenure.MemoryPeople, "person:john", "likes:coffee", "John likes strong coffee", 1, false, 40},
	{tenure.MemoryPeople, "person:mia", "relation", "Mia is Ada's sister", 2, false, 150},
	{tenure.MemoryPeople, "person:mia", "job", "Mia works as a nurse", 1, false, 30},
	{tenure.MemoryPeople, "person:mia", "birthday", "Mia's birthday is 3 May", 1, false, 20},
	{tenure.MemoryPeople, "person:leo", "relation", "Leo is Ada's neighbour", 1, false, 400},
	{tenure.MemoryPeople, "person:leo", "likes:guitar", "Leo plays guitar at night", 1, false, 400},
	{tenure.MemoryProject, "project:dashboard", "status", "The dashboard redesign launches in beta next month", 2, false, 5},
	{tenure.MemoryProject, "project:dashboard", "stack", "The dashboard uses React and TypeScript", 1, false, 3},
	{tenure.MemoryProject, "project:analytics", "db", "The analytics store runs on ClickHouse", 2, false, 2},
	{tenure.MemoryProfile, "person:ada", "breakfast", "Ada had toast on a Tuesday", 0, false, 500},
}

// fixtureQuestions ask for facts of the fixture, by words they share with
// it, by an entity they name, or by neither.
var fixtureQuestions = []struct{ q, want string }{
	{"where does John live", "John lives in Porto"},
	{"what does John do", "John handles the backend"},
	{"anything about Mia I should remember", "Mia is Ada's sister"},
	{"which medicine must I avoid", "allergic to penicillin"},
	{"which database?", "ClickHouse"},
	{"what is launching soon", "beta next month"},
	{"who am I", "Ada Lovelace"},
	{"what music does Leo play", "Leo plays guitar"},
	{"plan a gift for my sister", "Mia's birthday"},
	{"what framework is the UI built with", "React and TypeScript"},
}

// TestMemoryFixtureAblation measures on the fixture how many questions
// find their fact at each budget, with the default ranking and with its
// parts turned off; docs/benchmarks.md reports the table it logs.
func TestMemoryFixtureAblation(t *testing.T) {
	asked := t0.Add(600 * 24 * time.Hour)
	c := &clock{}
	s := openAt(t, c)
	for _, m := range memoryFixture {
		c.t = asked.Add(-time.Duration(m.ageDays) * 24 * time.Hour)
		mustPut(t, s, tenure.Object{Content: m.content, Memory: &tenure.Memory{Kind: m.kind, EntityRefs: []string{m.ref},
			Attribute: m.attr, Importance: tenure.Ptr(m.imp), Pinned: m.pinned}})
	}
	c.t = asked
	noFill := compile.DefaultMemoryRanking
	noFill.NoFill = true
	systems := []struct {
		name string
		r    compile.MemoryRanking
	}{{"default", compile.DefaultMemoryRanking}, {"similarity-only", compile.MemoryRanking{Similarity: 1}}, {"no-fill", noFill}}
	budgets := []int{100, 200, 400}
	found := map[string]map[int]int{}
	var table strings.Builder
	fmt.Fprintf(&table, "%-16s", "system")
	for _, b := range budgets {
		fmt.Fprintf(&table, " @%-4d", b)
	}
	table.WriteString("\n")
	for _, sys := range systems {
		found[sys.name] = map[int]int{}
		fmt.Fprintf(&table, "%-16s", sys.name)
		for _, b := range budgets {
			for _, q := range fixtureQuestions {
				env, _, err := compile.New(s, compile.Options{Now: c.now, MemoryRanking: &sys.r}).Compile(context.Background(),
					compile.Request{Principal: ada, Query: q.q, Budget: b})
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(env.Text(), q.want) {
					found[sys.name][b]++
				} else if sys.name == "default" && b == budgets[len(budgets)-1] {
					t.Logf("default @%d misses %q", b, q.q)
				}
			}
			fmt.Fprintf(&table, " %2d/%-2d", found[sys.name][b], len(fixtureQuestions))
		}
		table.WriteString("\n")
	}
	t.Logf("questions whose fact reached the envelope:\n%s", table.String())
	for _, b := range budgets {
		if found["default"][b] < found["no-fill"][b] {
			t.Errorf("@%d: the default found %d, without the fill %d", b, found["default"][b], found["no-fill"][b])
		}
	}
	if found["default"][400] <= found["no-fill"][400] {
		t.Errorf("the fill and the foundation set found nothing more at 400 tokens: %v", found)
	}
}
