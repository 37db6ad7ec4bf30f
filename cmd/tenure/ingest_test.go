package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const goodJSONL = `{"thread_id": "t1", "id": "m1", "role": "user", "speaker": "Ann", "content": "I adopted a beagle called Rex yesterday.", "created_at": "2023-05-08T13:56:00Z"}

{"thread_id": "t1", "id": "m2", "role": "assistant", "speaker": "Bot", "content": "Congratulations!", "created_at": "2023-05-08T13:57:00Z", "attachments": [{"kind": "photo", "caption": "a beagle puppy"}]}
`

func TestIngestJSONL(t *testing.T) {
	db := newDB(t)
	file := writeFile(t, "msgs.jsonl", goodJSONL)
	got := mustJSON[ingestResult](t, "", "ingest", "--db", db, file)
	if got.Messages != 2 || got.Appended != 2 || got.Skipped != 0 {
		t.Errorf("first import = %+v, want 2 appended", got)
	}
	// Re-importing is a no-op; standard input works too.
	again := mustJSON[ingestResult](t, goodJSONL, "ingest", "--db", db, "-")
	if again.Appended != 0 || again.Skipped != 2 {
		t.Errorf("re-import = %+v, want 2 skipped", again)
	}
	// The messages are compile candidates, with the date resolved.
	out := mustCLI(t, "", "compile", "--db", db, "--query", "When did Ann adopt Rex?", "--budget", "200").stdout
	for _, want := range []string{"Ann: I adopted a beagle called Rex yesterday. (yesterday = 7 May 2023)", "[8 May 2023]",
		"Bot: Congratulations! [shared photo: a beagle puppy]"} {
		if !strings.Contains(out, want) {
			t.Errorf("compiled context lacks %q:\n%s", want, out)
		}
	}
	human := mustCLI(t, goodJSONL, "ingest", "--db", db, "-").stdout
	if human != "-: appended 0 messages, skipped 2 already present\n" {
		t.Errorf("human output = %q", human)
	}
}

func TestIngestInvalid(t *testing.T) {
	line := func(fields string) string {
		return `{"thread_id": "t1", "id": "m3", "role": "user", "content": "hello", "created_at": "2023-05-08T14:00:00Z"` + fields + "}\n"
	}
	for _, c := range []struct {
		name, input, wantErr, field string
	}{
		{"malformed JSON", goodJSONL + `{"thread_id": "t1",` + "\n", "line 4, column 20: malformed JSON", ""},
		{"unknown field", goodJSONL + line(`, "tokens": 3`), "line 4: tokens: unknown field", "tokens"},
		{"bad role", strings.Replace(goodJSONL, `"role": "assistant"`, `"role": "robot"`, 1), "line 3: role: unknown value", "role"},
		{"missing created_at", line("")[:0] + `{"thread_id": "t1", "id": "m3", "role": "user", "content": "hi"}` + "\n", "line 1: created_at: required", "created_at"},
		{"bad time", strings.Replace(goodJSONL, "2023-05-08T13:57:00Z", "May 8", 1), "line 3: created_at", "created_at"},
		{"empty content", line("")[:0] + `{"thread_id": "t1", "id": "m3", "role": "user", "content": " ", "created_at": "2023-05-08T14:00:00Z"}` + "\n", "line 1: content", "content"},
		{"same id twice", goodJSONL + strings.Replace(line(""), `"m3"`, `"m1"`, 1), "line 4: id: message \"m1\" appears twice", "id"},
		{"no messages", "\n\n", "holds no messages", "FILE"},
		{"not an object", goodJSONL + "[1, 2]\n", "line 4: want a message object, got [1, 2]", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := newDB(t)
			r := tenureCLI(t, c.input, "ingest", "--db", db, "-")
			if r.code == 0 || !strings.Contains(r.stderr, c.wantErr) {
				t.Fatalf("exit %d, stderr %q; want an error containing %q", r.code, r.stderr, c.wantErr)
			}
			j := tenureCLI(t, c.input, "ingest", "--db", db, "-", "--json")
			var body struct{ Field string }
			if err := json.Unmarshal([]byte(j.stderr), &body); err != nil || body.Field != c.field {
				t.Errorf("JSON error %q: field %q, want %q", j.stderr, body.Field, c.field)
			}
			// Nothing was imported, not even the good lines before the bad one.
			if out := mustCLI(t, "", "compile", "--db", db, "--query", "beagle", "--budget", "200").stdout; strings.Contains(out, "beagle") {
				t.Errorf("a failed import left messages behind:\n%s", out)
			}
		})
	}
}

func TestIngestConflict(t *testing.T) {
	db := newDB(t)
	mustCLI(t, goodJSONL, "ingest", "--db", db, "-")
	changed := strings.Replace(goodJSONL, "Congratulations!", "Congrats!", 1) + `{"thread_id": "t1", "id": "m9", "role": "user", "content": "new", "created_at": "2023-05-09T10:00:00Z"}` + "\n"
	r := tenureCLI(t, changed, "ingest", "--db", db, "-")
	if r.code != 5 || !strings.Contains(r.stderr, "line 3: id: message \"m2\" already exists") {
		t.Fatalf("exit %d, stderr %q; want a conflict naming line 3", r.code, r.stderr)
	}
	if out := mustCLI(t, "", "compile", "--db", db, "--query", "new", "--budget", "200").stdout; strings.Contains(out, ": new") {
		t.Errorf("the conflicting import appended m9:\n%s", out)
	}
}

func TestIngestLoCoMo(t *testing.T) {
	db := newDB(t)
	got := mustJSON[ingestResult](t, "", "ingest", "--db", db, "--format", "locomo", "../../eval/testdata/locomo/tiny.json")
	if got.Appended != 8 {
		t.Errorf("appended %d turns, want 8", got.Appended)
	}
	out := mustCLI(t, "", "compile", "--db", db, "--query", "When did Ben adopt Rex?", "--budget", "300").stdout
	if !strings.Contains(out, "Ben: I adopted a beagle called Rex last Saturday. (last Saturday = 6 May 2023)") {
		t.Errorf("compiled context:\n%s", out)
	}
	if strings.Contains(out, "zz") {
		t.Errorf("gold data reached the store:\n%s", out)
	}
	bad := writeFile(t, "bad.json", `{"speaker_a": "Ann", "speaker_b": "Ben", "session_1_date_time": "soon", "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "hi"}]}`)
	r := tenureCLI(t, "", "ingest", "--db", db, "--format", "locomo", bad)
	if r.code != 2 || !strings.Contains(r.stderr, "session_1_date_time") {
		t.Errorf("exit %d, stderr %q; want an invalid-input error naming session_1_date_time", r.code, r.stderr)
	}
	if r := tenureCLI(t, "", "ingest", "--db", db, "--format", "csv", bad); r.code != 2 || !strings.Contains(r.stderr, "--format") {
		t.Errorf("unknown format: exit %d, stderr %q", r.code, r.stderr)
	}
}
