package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tenure-dev/tenure/internal/golden"
)

// screenshotsEnv writes the README's screenshots (docs/img) when set, as
// go test -update does.
const screenshotsEnv = "TENURE_WEB_SCREENSHOTS"

// chromium returns the path of a Chromium to drive, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestBrowser drives headless Chromium through the inspector: sign-in, a
// search, an object's chain and timeline, resolving a conflict, a compile
// with its trace, and EXPAND of a state item. It skips when Chromium is
// missing, except in CI (env CI set), where .ci/run installs it.
func TestBrowser(t *testing.T) {
	path := chromium()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("Chromium is missing (apt-get install -y chromium): the browser test never skips in CI")
		}
		t.Skip("Chromium is not installed (apt-get install -y chromium)")
	}
	e := newEnv(t)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900)}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	// The first action starts the browser, tied to bctx (not to the
	// step timeout's context, which would end it with the steps).
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, 60*time.Second)
	defer cancel()

	writeShots := golden.Updating() || os.Getenv(screenshotsEnv) != ""
	// run runs a step's actions; on failure it saves a screenshot of the
	// page beside the test's temporary files and fails.
	var failed func(step string, err error)
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			failed(step, err)
		}
	}
	failed = func(step string, err error) {
		t.Helper()
		{
			sctx, done := context.WithTimeout(bctx, 5*time.Second)
			defer done()
			if text, err := chromedp.Run(sctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`)); err == nil {
				t.Logf("the page of the failed step: %s", text)
			}
			if png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100)); err == nil {
				f := filepath.Join(os.TempDir(), "tenure-web-"+step+".png")
				if os.WriteFile(f, png, 0o644) == nil {
					t.Logf("screenshot of the failed step: %s", f)
				}
			}
			t.Fatalf("%s: %v", step, err)
		}
	}
	// shot writes a README screenshot of the viewport.
	shot := func(name string) {
		t.Helper()
		if !writeShots {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			failed("screenshot-"+name, err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", "img", name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// contains asserts that the text of sel holds every want.
	contains := func(step, sel string, want ...string) {
		t.Helper()
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			failed(step, err)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Fatalf("%s: %s does not show %q:\n%s", step, sel, w, text)
			}
		}
	}
	count := func(step, js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			failed(step, err)
		}
		return n
	}

	// Sign in: the root redirects to the sign-in page, the key signs in.
	run("signin", chromedp.Navigate(e.srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("#key")),
		chromedp.SendKeys(chromedp.ID("#key"), e.keys["alice"]), chromedp.Click(chromedp.ID("#signin")),
		chromedp.WaitVisible(chromedp.ID("#objects")))
	contains("signin", "#whoami", "alice @ acme")

	// Search by key prefix.
	// The unfiltered listing holds db2 too: the search has loaded when an
	// object it leaves out is gone.
	run("search", chromedp.SetValue(chromedp.ID("#f-key"), "billing"), chromedp.Click(chromedp.ID("#search")),
		chromedp.WaitNotPresent(chromedp.CSS(`#objects a[href="/ui/objects/`+e.ids["xss"]+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#objects a[href="/ui/objects/`+e.ids["db2"]+`"]`)))
	contains("search", "#objects", "billing.database", "PostgreSQL", "billing.backup")
	// Both objects that held billing.database (the first superseded) and
	// the backup that depends on it.
	if n := count("search", `document.querySelectorAll("#objects tbody a").length`); n != 3 {
		t.Fatalf("search billing: %d objects, want 3", n)
	}
	shot("objects")

	// The object's chain and timeline.
	run("object", chromedp.Click(chromedp.CSS(`#objects a[href="/ui/objects/`+e.ids["db2"]+`"]`)),
		chromedp.WaitVisible(chromedp.ID("#timeline")))
	contains("object", "#chain", "MySQL", "PostgreSQL", "superseded")
	contains("object", "#dependants", "billing.backup")
	if n := count("object", `document.querySelectorAll("#timeline rect.box").length`); n != count("object", `document.querySelectorAll("#versions tbody tr").length`) || n < 3 {
		t.Fatalf("timeline: %d boxes, want one per stored version (at least 3)", n)
	}
	if n := count("object", `document.querySelectorAll('#timeline rect.box[stroke-width="3"]').length`); n < 1 {
		t.Fatal("timeline: the object shown is not highlighted")
	}
	shot("object")
	// Believed before the new claim: the old value.
	run("as-of", chromedp.Navigate(e.srv.URL+"/ui/objects/"+e.ids["db1"]+"?as_of_tx=2026-03-01T12:00"),
		chromedp.WaitVisible(chromedp.ID("#read-note")))
	contains("as-of", "#object-value", "MySQL")

	// Resolve the quarantined conflict by keeping one claim.
	run("conflicts", chromedp.Navigate(e.srv.URL+"/ui/conflicts"), chromedp.WaitVisible(chromedp.CSS(".conflict")))
	contains("conflicts", ".conflict", "standup.time", "Tuesday 10:00", "Thursday 15:00")
	shot("conflicts")
	run("resolve", chromedp.Click(chromedp.CSS(`.conflict form button.keep`)), chromedp.WaitVisible(chromedp.ID("#resolved")),
		chromedp.WaitVisible(chromedp.ID("#no-conflicts")))

	// Compile, then open the trace by its id.
	run("compile", chromedp.Navigate(e.srv.URL+"/ui/compile"), chromedp.WaitVisible(chromedp.ID("#c-query")),
		chromedp.SetValue(chromedp.ID("#c-query"), "Which database does billing use?"),
		chromedp.SetValue(chromedp.ID("#c-budget"), "800"),
		chromedp.Click(chromedp.ID("#compile")), chromedp.WaitVisible(chromedp.ID("#trace")))
	contains("compile", "#envelope", "PostgreSQL")
	contains("compile", "#compiled", e.ids["db2"])
	if n := count("compile", `document.querySelectorAll("#token-bar rect").length`); n < 2 {
		t.Fatalf("token bar: %d rects, want the budget and the sections", n)
	}
	shot("compile")
	traceID, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("trace-id")))
	if err != nil {
		failed("trace", err)
	}
	run("trace", chromedp.Click(chromedp.ID("#trace-id")),
		chromedp.WaitVisible(chromedp.ID("#steps")))
	contains("trace", "#h-trace", strings.TrimSpace(traceID))

	// EXPAND a state item: its source message is highlighted in place.
	run("threads", chromedp.Navigate(e.srv.URL+"/ui/threads"), chromedp.WaitVisible(chromedp.CSS(`#threads a[href="/ui/threads/launch"]`)),
		chromedp.Click(chromedp.CSS(`#threads a[href="/ui/threads/launch"]`)), chromedp.WaitVisible(chromedp.ID("#state-items")))
	contains("threads", "#state-items", "PostgreSQL")
	run("expand", chromedp.Click(chromedp.CSS(`#state-items a.expand[aria-label*="PostgreSQL"]`)), chromedp.WaitVisible(chromedp.ID("#expanded")))
	contains("expand", ".msg.highlight .msg-body", "We decided to go with PostgreSQL")
	if n := count("expand", `document.querySelectorAll(".msg.highlight").length`); n != 1 {
		t.Fatalf("expand: %d messages highlighted, want 1", n)
	}
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`))
	if err != nil {
		failed("expand", err)
	}
	if focused != "msg-m2" {
		t.Errorf("expand: focus on %q, want the highlighted message msg-m2", focused)
	}
	shot("thread")

	// An entity: from the list to its page, with its card.
	seedEntities(e)
	run("entities", chromedp.Navigate(e.srv.URL+"/ui/entities?type=person"), chromedp.WaitVisible(chromedp.CSS(`#entities a[href="/ui/entities/person:john_doe"]`)),
		chromedp.Click(chromedp.CSS(`#entities a[href="/ui/entities/person:john_doe"]`)), chromedp.WaitVisible(chromedp.ID("#entity-card")))
	contains("entities", "#entity-card", "[person:john_doe]: John Doe's birthday is 3 May")
	contains("entities", "#entity-memories", "John Doe likes coffee")
	shot("entity")
}
