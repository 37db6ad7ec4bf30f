// Command snapshots runs three agents — a semantic mapper, a rule checker
// and a summarizer — against a Tenure server, round by round, until their
// shared workflow snapshot converges, and prints what each round changed
// and the delta history of $.bindings.customer (docs/snapshots.md).
//
//	go run ./examples/snapshots
//
// starts a server on a temporary database and creates a key for a router
// and for each agent. To run against a server of your own, give its URL
// and the keys (tenure keys create --user semantic-mapper, …):
//
//	go run ./examples/snapshots --server http://127.0.0.1:8080 \
//	    --router-key $ROUTER --mapper-key $MAPPER --checker-key $CHECKER --summarizer-key $SUMMARIZER
//
// Each agent is its own HTTP client with its own key: the server makes the
// key's principal the agent of every delta it submits.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "snapshots:", err)
		os.Exit(1)
	}
}

// query is what the workflow answers.
const query = "Which customers placed orders over $500 last month, and what was each order's amount?"

// maxRounds bounds a run that would not converge.
const maxRounds = 10

// keys are the API keys of the router and of the agents.
type keys struct{ router, mapper, checker, summarizer string }

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("snapshots", flag.ContinueOnError)
	server := fs.String("server", "", "a Tenure server's `URL` (default: start one on a temporary database)")
	workflow := fs.String("workflow", "orders-"+time.Now().UTC().Format("20060102T150405"), "the workflow's `id`")
	var k keys
	fs.StringVar(&k.router, "router-key", "", "with --server: the router's API `key` (it starts the workflow and closes rounds)")
	fs.StringVar(&k.mapper, "mapper-key", "", "with --server: the semantic mapper's API `key`")
	fs.StringVar(&k.checker, "checker-key", "", "with --server: the rule checker's API `key`")
	fs.StringVar(&k.summarizer, "summarizer-key", "", "with --server: the summarizer's API `key`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *server == "" {
		url, stop, err := startServer(ctx, &k)
		if err != nil {
			return err
		}
		defer stop()
		*server = url
	} else if k.router == "" || k.mapper == "" || k.checker == "" || k.summarizer == "" {
		return errors.New("with --server, give --router-key, --mapper-key, --checker-key and --summarizer-key")
	}
	client := func(key string) snapshot.Store { return tenurehttp.NewClient(*server, key, tenurehttp.ClientOptions{}) }
	return converge(ctx, out, *workflow, client(k.router), []agent{
		{name: "semantic-mapper", store: client(k.mapper), propose: mapper},
		{name: "rule-checker", store: client(k.checker), propose: checker},
		{name: "summarizer", store: client(k.summarizer), propose: summarizer},
	})
}

// agent reads the snapshot and proposes deltas for the open round.
type agent struct {
	name    string
	store   snapshot.Store
	propose func(s snapshot.Snapshot) []snapshot.Delta
}

// converge starts the workflow and runs rounds until one changes nothing.
func converge(ctx context.Context, out io.Writer, workflow string, router snapshot.Store, agents []agent) error {
	none := tenure.Principal{} // the server takes the principal from the key
	snap, err := router.StartWorkflow(ctx, none, snapshot.Workflow{WorkflowID: workflow, Query: query,
		Experts:        []snapshot.Expert{{Path: "$.rules", Agents: []string{"rule-checker"}}},
		PathStrategies: map[string]snapshot.Strategy{"$.rules": snapshot.ExpertOverride, "$.entities": snapshot.Union}})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "workflow %s: %q\n", workflow, query)
	for !snap.Converged {
		if snap.OpenRound > maxRounds {
			return fmt.Errorf("no convergence in %d rounds", maxRounds)
		}
		for _, a := range agents {
			cur, err := a.store.Snapshot(ctx, none, workflow, snapshot.Read{OmitDeltas: true})
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			ds := a.propose(cur)
			for i := range ds {
				ds[i].Round = cur.OpenRound
			}
			if len(ds) == 0 {
				continue
			}
			if _, err := a.store.SubmitDeltas(ctx, none, workflow, ds); err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
		}
		if snap, err = router.CloseRound(ctx, none, workflow, 0); err != nil {
			return err
		}
		printRound(out, snap)
	}
	h, err := router.PathHistory(ctx, none, workflow, "$.bindings.customer")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\ndelta history of $.bindings.customer:\n")
	for _, d := range h.Deltas {
		fmt.Fprintln(out, d)
	}
	final, err := json.MarshalIndent(snap.State, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nfinal state (round %d, %d bytes):\n%s\n", snap.Round, snap.StateSize, final)
	return nil
}

// printRound prints what closing a round did.
func printRound(out io.Writer, s snapshot.Snapshot) {
	r := s.Report
	fmt.Fprintf(out, "\nround %d: %s, %d applied, %d lost; %s; converged: %v\n", s.Round, count(r.Deltas, "delta"), r.Applied, r.Lost,
		count(len(r.Changes), "change"), r.Converged)
	for _, c := range r.Changes {
		v := c.After
		if c.Kind == snapshot.Removed {
			v = c.Before
		}
		fmt.Fprintf(out, "  %-8s %s = %s\n", c.Kind, c.Path, v)
	}
	for _, c := range r.Conflicts {
		for _, l := range c.Losers {
			fmt.Fprintf(out, "  conflict at %s: %s lost (%s: %s)\n", c.Path, l.AgentID, l.Reason, l.Detail)
		}
	}
}

// count says "1 delta", "2 deltas".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// delta builds a delta; its round is set when it is submitted.
func delta(w float64, op snapshot.Operation, path string, value any, provenance string) snapshot.Delta {
	b, _ := json.Marshal(value)
	return snapshot.Delta{Weight: &w, Operation: op, Path: path, Value: b, Provenance: provenance}
}

// kgs is the semantic mapper's knowledge graph: terms and their concepts.
var kgs = []struct{ term, concept string }{
	{"customer", "sea:customer:001"}, {"order", "sea:order:001"}, {"amount", "sea:amount:001"},
}

// mapper binds the query's terms to concepts, then lists the bound
// concepts as entities.
func mapper(s snapshot.Snapshot) []snapshot.Delta {
	var ds []snapshot.Delta
	bound := s.Bindings()
	words := strings.Fields(strings.ToLower(s.Query()))
	for _, k := range kgs {
		used := slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(strings.Trim(w, "?,.'s"), k.term) })
		if _, ok := bound[k.term]; !ok && used {
			ds = append(ds, delta(0.35, snapshot.OpAdd, "$.bindings."+k.term, k.concept,
				fmt.Sprintf("Matched '%s' to concept via KGS lookup", k.term)))
		}
	}
	for _, k := range kgs {
		if bound[k.term] == "" || slices.ContainsFunc(s.Entities(), func(e any) bool { m, _ := e.(map[string]any); return m["id"] == k.concept }) {
			continue
		}
		ds = append(ds, delta(0.35, snapshot.OpAdd, "$.entities", map[string]string{"id": k.concept, "name": k.term, "type": "concept"},
			"Concept "+k.concept+" from the KGS"))
	}
	return ds
}

// rules are the rule checker's SBVR rules and the terms they need bound.
var rules = []struct{ id, rule, result string }{
	{"r1", "Each order is placed by exactly one customer", "satisfied"},
	{"r2", "The amount of an order is a positive number of dollars", "satisfied"},
}

var ruleTerms = map[string][]string{"r1": {"order", "customer"}, "r2": {"order", "amount"}}

// checker evaluates the rules whose terms are bound. Before any binding it
// guesses one for customer, lighter than the mapper's: a conflict it loses.
func checker(s snapshot.Snapshot) []snapshot.Delta {
	bound := s.Bindings()
	var ds []snapshot.Delta
	if len(bound) == 0 {
		ds = append(ds, delta(0.2, snapshot.OpAdd, "$.bindings.customer", "sea:client:042", "Guessed from the rule vocabulary ('client')"))
	}
	for _, r := range rules {
		done := slices.ContainsFunc(s.Rules(), func(e any) bool { m, _ := e.(map[string]any); return m["id"] == r.id })
		ready := !slices.ContainsFunc(ruleTerms[r.id], func(t string) bool { return bound[t] == "" })
		if ready && !done {
			ds = append(ds, delta(0.5, snapshot.OpAdd, "$.rules", map[string]string{"id": r.id, "rule": r.rule, "result": r.result},
				"Evaluated against the bound concepts"))
		}
	}
	return ds
}

// summarizer keeps a one-line summary of the bindings and rules.
func summarizer(s snapshot.Snapshot) []snapshot.Delta {
	var terms []string
	for t, c := range s.Bindings() {
		terms = append(terms, t+" = "+c)
	}
	slices.Sort(terms)
	summary := "no term bound yet"
	if len(terms) > 0 {
		summary = fmt.Sprintf("%d terms bound (%s); %d rules evaluated", len(terms), strings.Join(terms, ", "), len(s.Rules()))
	}
	if cur, _ := s.State["summary"].(string); cur == summary {
		return nil
	}
	return []snapshot.Delta{delta(0.2, snapshot.OpAdd, "$.summary", summary, "Summarized the snapshot of round "+fmt.Sprint(s.Round))}
}

// startServer serves a temporary database on a loopback port with a key
// for the router and each agent.
func startServer(ctx context.Context, k *keys) (string, func(), error) {
	dir, err := os.MkdirTemp("", "tenure-snapshots-")
	if err != nil {
		return "", nil, err
	}
	st := sqlite.New(filepath.Join(dir, "tenure.db"), sqlite.Options{})
	if err := st.Open(ctx); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	for _, a := range []struct {
		user string
		key  *string
	}{{"router", &k.router}, {"semantic-mapper", &k.mapper}, {"rule-checker", &k.checker}, {"summarizer", &k.summarizer}} {
		_, secret, err := st.CreateKey(ctx, tenure.APIKey{Name: a.user, Principal: tenure.Principal{UserID: a.user, Authority: "employee"}})
		if err != nil {
			st.Close()
			os.RemoveAll(dir)
			return "", nil, err
		}
		*a.key = secret
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.Close()
		os.RemoveAll(dir)
		return "", nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- tenurehttp.NewServer(st, st, tenurehttp.ServerOptions{}).Serve(sctx, ln) }()
	stop := func() {
		cancel()
		<-done
		st.Close()
		os.RemoveAll(dir)
	}
	return "http://" + ln.Addr().String(), stop, nil
}
