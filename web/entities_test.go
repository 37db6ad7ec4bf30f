package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

// seedEntities writes objects naming entities in alice's registry (John
// Doe twice, as person:john_doe and person:johnny, with memories about
// him), in bob's, and in another tenant's.
func seedEntities(e *env) {
	t := e.t
	t.Helper()
	puts := []struct {
		p tenure.Principal
		o tenure.Object
	}{
		{alice, tenure.Object{Key: "john.role", UserID: "alice", Content: "John Doe runs <b>ops</b>", CanonicalEntityIDs: []string{"person:John Doe"}}},
		{alice, tenure.Object{Key: "johnny.team", UserID: "alice", Content: "Johnny is on the platform team", CanonicalEntityIDs: []string{"person:Johnny"}}},
		{alice, tenure.Object{UserID: "alice", Content: "John Doe handles the backend <script>x</script>", Memory: &tenure.Memory{Kind: tenure.MemoryPeople,
			EntityRefs: []string{"person:john_doe"}, Attribute: "role", Importance: tenure.Ptr(2)}}},
		{alice, tenure.Object{UserID: "alice", Content: "John Doe likes coffee", Memory: &tenure.Memory{Kind: tenure.MemoryPeople,
			EntityRefs: []string{"person:john_doe"}, Attribute: "likes:coffee", Importance: tenure.Ptr(1)}}},
		{alice, tenure.Object{UserID: "alice", Content: "John Doe's birthday is 3 May", Memory: &tenure.Memory{Kind: tenure.MemoryPeople,
			EntityRefs: []string{"person:john_doe"}, Attribute: "birthday", Importance: tenure.Ptr(0), Pinned: true}}},
		{bob, tenure.Object{Key: "carol.role", UserID: "bob", Content: "Carol is bob's contact", CanonicalEntityIDs: []string{"person:Carol"}}},
		{tenure.Principal{UserID: "x", TenantID: "globex", Authority: "employee"}, tenure.Object{Key: "dana.role", UserID: "x", Content: "Dana", CanonicalEntityIDs: []string{"person:Dana"}}},
	}
	for _, p := range puts {
		if _, err := e.st.Put(e.ctx, p.p, p.o); err != nil {
			t.Fatalf("put %s: %v", p.o.Content, err)
		}
	}
}

func TestEntities(t *testing.T) {
	e := newEnv(t)
	seedEntities(e)
	a := newBrowser(t, e)
	a.signIn("alice")
	code, body, _ := a.do("GET", "/ui/entities?type=person", nil)
	if code != http.StatusOK || !strings.Contains(body, `href="/ui/entities/person:john_doe"`) || !strings.Contains(body, "person:johnny") {
		t.Fatalf("entities = %d, want alice's John Doe and Johnny\n%s", code, body)
	}
	if strings.Contains(body, "person:carol") || strings.Contains(body, "person:dana") {
		t.Fatal("the list shows another user's or tenant's entity")
	}
	if code, body, _ := a.do("GET", "/ui/entities?type=spaceship", nil); code != http.StatusBadRequest || !strings.Contains(body, "type") {
		t.Fatalf("type=spaceship = %d, want 400 naming the field", code)
	}
	// Paging: one a page reaches every entity once.
	seen := map[string]int{}
	next := "/ui/entities?type=person&limit=1"
	for pages := 0; next != ""; pages++ {
		if pages > 20 {
			t.Fatal("more pages than entities")
		}
		code, body, _ := a.do("GET", next, nil)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", next, code)
		}
		for _, m := range regexp.MustCompile(`<tr[^>]*><td><a href="/ui/entities/([^"]+)">`).FindAllStringSubmatch(body, -1) {
			seen[m[1]]++
		}
		next = ""
		if m := regexp.MustCompile(`href="([^"]+)" id="next-entities"`).FindStringSubmatch(body); m != nil {
			next = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	for _, id := range []string{"person:john_doe", "person:johnny"} {
		if seen[id] != 1 {
			t.Errorf("paging one a page lists %s %d times, want once (%v)", id, seen[id], seen)
		}
	}

	// The entity page: memories, the card (pinned, then importance ≥ 2; the
	// importance 1 memory left out), escaped.
	code, body, _ = a.do("GET", "/ui/entities/person:john_doe", nil)
	if code != http.StatusOK {
		t.Fatalf("entity page = %d\n%s", code, body)
	}
	card := regexp.MustCompile(`id="entity-card">([^<]*)<`).FindStringSubmatch(body)
	if card == nil || card[1] != `[person:john_doe]: John Doe&#39;s birthday is 3 May; John Doe handles the backend &lt;script&gt;x&lt;/script&gt;` {
		t.Fatalf("card = %q", card)
	}
	if !strings.Contains(body, "John Doe likes coffee") || strings.Contains(body, "<script>x") {
		t.Fatal("the memories table misses a memory or renders markup")
	}

	// Visibility: bob's and another tenant's entities are not found.
	for _, id := range []string{"person:carol", "person:dana", "person:nobody"} {
		if code, _, _ := a.do("GET", "/ui/entities/"+id, nil); code != http.StatusNotFound {
			t.Errorf("alice reads %s = %d, want 404", id, code)
		}
	}
	if code, _, _ := a.do("GET", "/ui/entities/person:carol?user=bob", nil); code != http.StatusNotFound {
		t.Errorf("alice reads bob's registry = %d, want 404", code)
	}

	// CSRF is required.
	if code, _, _ := a.do("POST", "/ui/entities/merge", url.Values{"from": {"person:johnny"}, "into": {"person:john_doe"}}); code != http.StatusForbidden {
		t.Fatalf("merge without CSRF = %d, want 403", code)
	}
	// Bob may not merge alice's entities: they do not exist for him.
	b := newBrowser(t, e)
	b.signIn("bob")
	if code, _, _ := b.do("POST", "/ui/entities/merge", url.Values{"csrf": {b.csrf}, "from": {"person:johnny"}, "into": {"person:john_doe"}, "user": {"alice"}}); code != http.StatusNotFound {
		t.Fatalf("bob merges alice's entities = %d, want 404", code)
	}

	// Merge, then undo: the history shows both.
	code, _, h := a.do("POST", "/ui/entities/merge", url.Values{"csrf": {a.csrf}, "from": {"person:johnny"}, "into": {"person:john_doe"}, "reason": {"same <person>"}})
	if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/ui/entities/person:john_doe?done=") {
		t.Fatalf("merge = %d %q", code, h.Get("Location"))
	}
	_, body, _ = a.do("GET", h.Get("Location"), nil)
	if !strings.Contains(body, `id="entity-done"`) || !strings.Contains(body, "same &lt;person&gt;") || !strings.Contains(body, "person:johnny") {
		t.Fatalf("after the merge, the page misses the operation, its reason or the moved alias\n%s", body)
	}
	op := regexp.MustCompile(`action="/ui/entities/ops/([^/"]+)/undo"`).FindStringSubmatch(body)
	if op == nil {
		t.Fatal("no undo form for the merge")
	}
	code, _, h = a.do("POST", "/ui/entities/ops/"+op[1]+"/undo", url.Values{"csrf": {a.csrf}, "back": {"person:john_doe"}})
	if code != http.StatusSeeOther {
		t.Fatalf("undo = %d", code)
	}
	_, body, _ = a.do("GET", h.Get("Location"), nil)
	ops := regexp.MustCompile(`(?s)<table id="entity-ops">.*?</table>`).FindString(body)
	if !strings.Contains(ops, ">merge<") || !strings.Contains(ops, "by alice") || strings.Contains(ops, "/undo") {
		t.Fatalf("after the undo, the operations table = %s", ops)
	}
	if code, body, _ := a.do("GET", "/ui/entities/person:johnny", nil); code != http.StatusOK || !strings.Contains(body, `id="entity-status">active`) {
		t.Fatalf("johnny after the undo = %d, want active again", code)
	}
	// An undone operation cannot be undone again.
	if code, _, _ := a.do("POST", "/ui/entities/ops/"+op[1]+"/undo", url.Values{"csrf": {a.csrf}}); code != http.StatusConflict {
		t.Fatalf("second undo = %d, want 409", code)
	}
}

func TestEntityCurating(t *testing.T) {
	e := newEnv(t)
	seedEntities(e)
	for _, o := range []tenure.Object{
		{Key: "jordan.person", UserID: "alice", Content: "Jordan", CanonicalEntityIDs: []string{"person:Jordan"}},
		{Key: "jordan.place", UserID: "alice", Content: "Jordan", CanonicalEntityIDs: []string{"place:Jordan"}},
		{Key: "jordan.who", UserID: "alice", Content: "Jordan?", CanonicalEntityIDs: []string{"Jordan"}},
		{Key: "acme.org", Content: "Acme", CanonicalEntityIDs: []string{"org:Acme"}},
		{Key: "globex.org", Content: "Globex", CanonicalEntityIDs: []string{"org:Globex"}},
	} {
		if _, err := e.st.Put(e.ctx, alice, o); err != nil {
			t.Fatal(err)
		}
	}
	a := newBrowser(t, e)
	a.signIn("alice")

	// A pending entity is marked in the list and settled by keeping it.
	_, body, _ := a.do("GET", "/ui/entities?status=pending", nil)
	m := regexp.MustCompile(`<tr class="pending"><td><a href="/ui/entities/([^"]+)">`).FindStringSubmatch(body)
	if m == nil || !strings.Contains(body, "needs review") {
		t.Fatalf("no pending entity marked in the list\n%s", body)
	}
	pending := m[1]
	_, body, _ = a.do("GET", "/ui/entities/"+pending, nil)
	if !strings.Contains(body, `id="settle-keep"`) {
		t.Fatal("no settle form on a pending entity")
	}
	code, _, h := a.do("POST", "/ui/entities/"+pending+"/settle", url.Values{"csrf": {a.csrf}, "keep": {"1"}, "reason": {"a third Jordan"}})
	if code != http.StatusSeeOther {
		t.Fatalf("settle keep = %d", code)
	}
	if _, body, _ = a.do("GET", h.Get("Location"), nil); !strings.Contains(body, `id="entity-status">active`) || !strings.Contains(body, ">keep<") {
		t.Fatal("after keep, the entity is not active with a keep operation")
	}

	// Merge, then split the merged alias off again.
	if code, _, _ := a.do("POST", "/ui/entities/merge", url.Values{"csrf": {a.csrf}, "from": {"person:johnny"}, "into": {"person:john_doe"}}); code != http.StatusSeeOther {
		t.Fatalf("merge = %d", code)
	}
	_, body, _ = a.do("GET", "/ui/entities/person:john_doe", nil)
	if !strings.Contains(body, `name="alias" value="person:johnny"`) {
		t.Fatal("no split form offering the merged alias")
	}
	code, _, h = a.do("POST", "/ui/entities/person:john_doe/split", url.Values{"csrf": {a.csrf}, "alias": {"person:johnny"}, "label": {"Johnny B"}})
	if code != http.StatusSeeOther {
		t.Fatalf("split = %d", code)
	}
	if _, body, _ = a.do("GET", h.Get("Location"), nil); !strings.Contains(body, ">split<") || strings.Contains(regexp.MustCompile(`(?s)id="entity-aliases">[^<]*<`).FindString(body), "johnny") {
		t.Fatal("after the split, the entity still holds the alias or lists no split")
	}

	// The shared registry needs entities:write: no forms, and the engine
	// refuses a forged request.
	if code, body, _ = a.do("GET", "/ui/entities/org:acme", nil); code != http.StatusOK || strings.Contains(body, `id="merge"`) {
		t.Fatal("curating forms shown on the shared registry without entities:write")
	}
	if code, _, _ := a.do("POST", "/ui/entities/merge", url.Values{"csrf": {a.csrf}, "from": {"org:globex"}, "into": {"org:acme"}}); code != http.StatusForbidden {
		t.Fatalf("alice merges shared entities = %d, want 403", code)
	}
}
