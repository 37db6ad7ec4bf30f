// Command gen derives the package's compact table from a WordNet 3.0
// database (Debian's wordnet-base: /usr/share/wordnet):
//
//	go run ./wordnet/internal/gen -dict /usr/share/wordnet -out wordnet/wordnet.tsv.gz
//
// Only what the package answers is kept: each lemma's first senses (as
// dense synset numbers), the lexicographer file of its first sense, the
// synsets its first senses are derivationally related to (as numbers of
// the same kind), and the irregular forms of the exception lists.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// senses is how many of a lemma's senses (most frequent first) are kept.
const senses = 3

var posNames = map[string]string{"n": "noun", "v": "verb", "a": "adj", "r": "adv"}

type synset struct {
	lexfile int
	// derivs are the synset's derivation pointers: the source word and
	// the target synset ("pos:offset").
	derivs []deriv
}

type deriv struct{ word, target string }

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet 3.0 dict directory")
	out := flag.String("out", "wordnet/wordnet.tsv.gz", "output file")
	flag.Parse()
	if err := run(*dict, *out); err != nil {
		log.Fatal(err)
	}
}

func run(dict, out string) error {
	synsets := map[string]*synset{} // "pos:offset"
	for p, name := range posNames {
		if err := readData(filepath.Join(dict, "data."+name), p, synsets); err != nil {
			return err
		}
	}
	ids := map[string]int{}
	var lines []string
	for _, p := range []string{"n", "v", "a", "r"} {
		rows, err := readIndex(filepath.Join(dict, "index."+posNames[p]), p, synsets, ids)
		if err != nil {
			return err
		}
		lines = append(lines, rows...)
		exc, err := readExceptions(filepath.Join(dict, posNames[p]+".exc"), p)
		if err != nil {
			return err
		}
		lines = append(lines, exc...)
	}
	// The package finds rows by binary search: pos, then lemma or form.
	sort.Strings(lines)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == ' ' {
			continue
		}
		if err := fn(l); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return sc.Err()
}

// readData keeps each synset's lexicographer file and its derivation
// pointers.
func readData(path, p string, synsets map[string]*synset) error {
	return eachLine(path, func(l string) error {
		f := strings.Fields(strings.SplitN(l, " | ", 2)[0])
		if len(f) < 4 {
			return fmt.Errorf("synset line %q is too short", l)
		}
		lexfile, err := strconv.Atoi(f[1])
		if err != nil {
			return fmt.Errorf("synset %s: lexicographer file %q", f[0], f[1])
		}
		s := &synset{lexfile: lexfile}
		n, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil || 4+2*int(n) >= len(f) {
			return fmt.Errorf("synset %s: word count %q", f[0], f[3])
		}
		var words []string
		for k := 0; k < int(n); k++ {
			w := strings.ToLower(f[4+2*k])
			if j := strings.IndexByte(w, '('); j > 0 { // adjective markers: "(a)", "(p)"
				w = w[:j]
			}
			words = append(words, w)
		}
		i := 4 + 2*int(n)
		ptrs, err := strconv.Atoi(f[i])
		if err != nil || i+1+4*ptrs > len(f) {
			return fmt.Errorf("synset %s: pointer count %q", f[0], f[i])
		}
		for k := 0; k < ptrs; k++ {
			sym, off, tp, st := f[i+1+4*k], f[i+2+4*k], f[i+3+4*k], f[i+4+4*k]
			if sym != "+" {
				continue
			}
			src, _ := strconv.ParseInt(st[:2], 16, 32)
			if src < 1 || int(src) > len(words) {
				continue
			}
			if tp == "s" {
				tp = "a"
			}
			s.derivs = append(s.derivs, deriv{words[src-1], tp + ":" + off})
		}
		synsets[p+":"+f[0]] = s
		return nil
	})
}

// readIndex writes one row per lemma: pos, lemma, lexfile of the first
// sense, synset numbers, and the numbers of the synsets the lemma's
// first senses derive from or to.
func readIndex(path, p string, synsets map[string]*synset, ids map[string]int) ([]string, error) {
	var rows []string
	err := eachLine(path, func(l string) error {
		f := strings.Fields(l)
		lemma := f[0]
		nsyn, _ := strconv.Atoi(f[2])
		np, _ := strconv.Atoi(f[3])
		offs := f[4+np+2:]
		if len(offs) != nsyn {
			return fmt.Errorf("lemma %q: %d offsets, want %d", lemma, len(offs), nsyn)
		}
		if len(offs) > senses {
			offs = offs[:senses]
		}
		var nums, derivs []string
		lexfile := -1
		for _, o := range offs {
			key := p + ":" + o
			s := synsets[key]
			if s == nil {
				return fmt.Errorf("lemma %q: no synset %s", lemma, key)
			}
			if lexfile < 0 {
				lexfile = s.lexfile
			}
			nums = append(nums, num(ids, key))
			for _, d := range s.derivs {
				if d.word == lemma && synsets[d.target] != nil {
					if n := num(ids, d.target); !slices.Contains(derivs, n) {
						derivs = append(derivs, n)
					}
				}
			}
		}
		rows = append(rows, strings.Join([]string{p, lemma, strconv.Itoa(lexfile), strings.Join(nums, ","),
			strings.Join(derivs, ",")}, "\t"))
		return nil
	})
	return rows, err
}

// num is the dense number of a synset, in base 36; synsets are numbered
// as they are first met.
func num(ids map[string]int, key string) string {
	id, ok := ids[key]
	if !ok {
		id = len(ids)
		ids[key] = id
	}
	return strconv.FormatInt(int64(id), 36)
}

// readExceptions writes one row per irregular form: "x" and the pos,
// the form, its base forms.
func readExceptions(path, p string) ([]string, error) {
	var rows []string
	err := eachLine(path, func(l string) error {
		f := strings.Fields(l)
		if len(f) < 2 {
			return fmt.Errorf("exception line %q has no base form", l)
		}
		rows = append(rows, strings.Join([]string{"x" + p, f[0], strings.Join(f[1:], ",")}, "\t"))
		return nil
	})
	return rows, err
}
