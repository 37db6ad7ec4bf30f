package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// oracleWorld is one random tenant of the existence-oracle property: an
// owner who writes a hidden object (and maybe a hidden message) and actors
// none of whom may read them.
type oracleWorld struct {
	rng *rand.Rand
	// tenant holds the world; elsewhere receives world A's copy of the
	// hidden writes, so that both worlds store the same rows (and the
	// full-text index the same statistics) and differ only in whether
	// the hidden object is in the actors' tenant.
	tenant, elsewhere string
	owner             tenure.Principal
	actors            []tenure.Principal
	// hidden is the hidden object as the owner writes it; hiddenID is
	// the id it gets (from the hidden id sequence).
	hidden   tenure.Object
	hiddenID string
	// hiddenMsg is the owner's private message, nil when the world has
	// none.
	hiddenMsg *tenure.Message
	// decoys are the texts of the owner's other hidden objects, hidden
	// like the first and written right after it: decoys[0] world A's
	// (into the elsewhere tenant), decoys[1] world B's (into the tenant).
	// The two worlds draw them apart, so that the full-text statistics
	// of what the actors may not read differ between the worlds, in
	// their tenant and in another.
	decoys [2][]string
	// deleteHidden hard-deletes the hidden object half-way.
	deleteHidden bool
	// hiddenWritten is set once the hidden object is written: from then
	// on the actors also write its value. Before, a claim of theirs with
	// that value would make the owner's write a confirmation of it.
	hiddenWritten bool
	// ids are the object ids the actors have seen; uids the state items
	// they wrote.
	ids, uids []string
}

// Pools the worlds draw from: few enough that keys, ids and contents
// collide often.
var (
	oracleKeys     = []string{"sec.top", "order.status", "plan"}
	oracleValues   = []string{"alpha", "beta", "gamma"}
	hiddenValue    = "omega"
	oracleRoles    = []string{"sales", "finance", "hr"}
	oracleUsers    = []string{"ann", "bob", "cy", "dee"}
	oracleThreads  = []string{"th1", "th2"}
	oracleMsgIDs   = []string{"m1", "m2", "m3", "m4"}
	oracleContents = []string{"the launch code is 1234", "lunch at noon on friday", "alpha ships in july", "budget is tight"}
	oracleWords    = []string{"launch", "code", "alpha", "budget", "plan", "order", "status", "friday", "july", "top"}
)

// hiddenKinds are the ways the hidden object is kept from the actors.
var hiddenKinds = []string{"classification", "allow_roles", "deny_roles", "user"}

func newOracleWorld(i int, seed uint64) *oracleWorld {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	w := &oracleWorld{rng: rng, tenant: fmt.Sprintf("w%d", i), elsewhere: fmt.Sprintf("x%d", i)}
	kind := hiddenKinds[rng.IntN(len(hiddenKinds))]
	w.owner = tenure.Principal{UserID: "own", TenantID: w.tenant, Authority: "policy", Clearance: tenure.HighlyRestricted,
		Roles:       []string{"vault", "sales", "finance", "hr"},
		Permissions: []string{tenure.PermEnvironmentWrite, tenure.PermAnyUser, tenure.PermRulesWrite}}
	if rng.IntN(10) < 7 {
		w.hiddenMsg = &tenure.Message{ThreadID: pick(rng, oracleThreads), ID: pick(rng, oracleMsgIDs), UserID: w.owner.UserID,
			Role: "user", Content: pick(rng, oracleContents)}
	}
	w.hidden = w.hiddenObject(kind)
	n := 1 + rng.IntN(4)
	for i := range w.decoys {
		for range n {
			w.decoys[i] = append(w.decoys[i], w.decoyText())
		}
	}
	w.deleteHidden = rng.IntN(5) == 0
	users := slices.Clone(oracleUsers)
	rng.Shuffle(len(users), func(a, b int) { users[a], users[b] = users[b], users[a] })
	for n := 2 + rng.IntN(3); len(w.actors) < n; {
		p := w.actor(users[len(w.actors)], kind)
		if p.CanSee(&w.hidden) {
			panic(fmt.Sprintf("world %d: actor %s can read the hidden object", i, p.UserID))
		}
		w.actors = append(w.actors, p)
	}
	return w
}

// hiddenObject is the object the actors may not read, hidden as kind says.
func (w *oracleWorld) hiddenObject(kind string) tenure.Object {
	rng := w.rng
	h := tenure.Object{TenantID: w.tenant, Key: "sec.top", Value: jsonString(hiddenValue), SecurityClassification: tenure.Restricted}
	switch n := rng.IntN(10); n {
	case 0, 1, 2:
		setLayer(&h, n)
	case 3:
		w.setStateItem(&h, hiddenValue)
	}
	if rng.IntN(3) > 0 {
		h.AuthorityLevel = tenure.Ptr(1 + rng.IntN(3))
	}
	if rng.IntN(3) == 0 {
		h.ValidFrom = T0.Add(-hours(rng.IntN(48)))
	}
	if rng.IntN(4) == 0 {
		h.DependsOn = []string{pick(rng, oracleKeys[1:])}
	}
	switch kind {
	case "classification":
		h.SecurityClassification = tenure.HighlyRestricted
	case "allow_roles":
		h.PermissionScope.AllowRoles = []string{"vault"}
	case "deny_roles":
		h.PermissionScope.DenyRoles = []string{"staff"}
	case "user":
		h.UserID = w.owner.UserID
		if rng.IntN(2) == 0 {
			// Two names of one entity of the owner's own registry: a
			// compilation's query naming one would search for the other
			// too, but only for principals who read that registry.
			name := pick(rng, oracleWords)
			h.CanonicalEntityIDs = []string{"person:Dr. " + name, "person:" + name}
		}
	}
	return h
}

// decoyText is one to six of the words queries draw from, repeats
// allowed, so that matches and their frequencies vary.
func (w *oracleWorld) decoyText() string {
	words := make([]string, 1+w.rng.IntN(6))
	for i := range words {
		words[i] = pick(w.rng, oracleWords)
	}
	return strings.Join(words, " ")
}

// decoy is the owner's j-th other hidden object, with text: hidden from
// the actors as the hidden object is, under a key of its own.
func (w *oracleWorld) decoy(j int, text string) tenure.Object {
	h := w.hidden
	return tenure.Object{TenantID: h.TenantID, Key: fmt.Sprintf("memo.%d", j), Value: jsonString(oracleValues[j%len(oracleValues)]), Content: text,
		UserID: h.UserID, SecurityClassification: h.SecurityClassification, PermissionScope: h.PermissionScope}
}

// actor is a random principal of the world that may not read what kind
// hides.
func (w *oracleWorld) actor(user, kind string) tenure.Principal {
	rng := w.rng
	h := tenure.DefaultHierarchy
	p := tenure.Principal{UserID: user, TenantID: w.tenant, Authority: h.Ranks[rng.IntN(len(h.Ranks))],
		Clearance: tenure.Classifications[rng.IntN(len(tenure.Classifications))]}
	for _, r := range oracleRoles {
		if rng.IntN(3) == 0 {
			p.Roles = append(p.Roles, r)
		}
	}
	for _, perm := range []string{tenure.PermEnvironmentWrite, tenure.PermRulesWrite} {
		if rng.IntN(3) == 0 {
			p.Permissions = append(p.Permissions, perm)
		}
	}
	switch kind {
	case "classification":
		p.Clearance = tenure.Classifications[rng.IntN(len(tenure.Classifications)-1)]
	case "deny_roles":
		p.Roles = append(p.Roles, "staff")
	}
	// Another user's messages are hidden only from principals that may
	// not act for other users.
	if kind != "user" && w.hiddenMsg == nil && rng.IntN(4) == 0 {
		p.Permissions = append(p.Permissions, tenure.PermAnyUser)
	}
	return p
}

// setLayer puts o in the working set, the environment or the identity
// layer for n 0, 1 or 2 (in session s1 when the layer needs one).
func setLayer(o *tenure.Object, n int) {
	switch n {
	case 0:
		o.Layer, o.SessionID = tenure.LayerWorkingSet, "s1"
	case 1:
		o.Layer = tenure.LayerEnvironment
	case 2:
		o.Layer, o.SessionID = tenure.LayerIdentity, "s1"
	}
}

// setStateItem makes o a decision of thread th1 ("use value") citing one
// of the message ids.
func (w *oracleWorld) setStateItem(o *tenure.Object, value string) {
	it := tenure.StateItem{Type: tenure.StateDecision, Text: "use " + value, Status: "active",
		Refs: []string{pick(w.rng, oracleMsgIDs)}, Confidence: tenure.ConfidenceMedium, ThreadID: "th1"}
	it.Coerce()
	o.Key, o.Content, o.Value, o.StateItem = "state/th1/"+it.UID, it.Text, nil, &it
}

// value is a value for an actor's claim: the hidden object's too once it
// is written.
func (w *oracleWorld) value() string {
	if w.hiddenWritten && w.rng.IntN(4) == 0 {
		return hiddenValue
	}
	return pick(w.rng, oracleValues)
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func jsonString(s string) []byte { return []byte(`"` + s + `"`) }
