// tlogcheck checks this project's transparency-log output with code it did not write: Go's
// golang.org/x/mod/sumdb/tlog (tree hashes, inclusion and consistency proofs) and
// golang.org/x/mod/sumdb/note (signed notes), as Debian 12's golang-golang-x-mod-dev ships them.
//
// It reads commands from the file named by its argument, one a line, and exits 1 at the first
// disagreement. Run it as: GO111MODULE=off GOPATH=/usr/share/gocode go run tlogcheck.go FILE
//
//	leaf <hex of leaf bytes>            append a leaf (in order)
//	root <size> <hex>                   tlog.TreeHash of the first <size> leaves must be <hex>
//	incl <index> <size> <hex,…|->       tlog.CheckRecord must accept the proof, tlog.ProveRecord must equal it
//	cons <old> <new> <hex,…|->          tlog.CheckTree must accept the proof, tlog.ProveTree must equal it
//	verify <vkey> <base64 of note>      note.Open must verify the note with that key; prints "verified <text base64>"
//	sign <skey> <base64 of text>        prints "signed <base64 of the note note.Sign makes>"
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

var stored []tlog.Hash
var leaves [][]byte

func reader() tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			if x >= int64(len(stored)) {
				return nil, fmt.Errorf("stored hash %d not available", x)
			}
			out[i] = stored[x]
		}
		return out, nil
	})
}

func fail(line int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "line %d: %s\n", line, fmt.Sprintf(format, args...))
	os.Exit(1)
}

func hashes(s string) []tlog.Hash {
	if s == "-" {
		return nil
	}
	var out []tlog.Hash
	for _, h := range strings.Split(s, ",") {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != tlog.HashSize {
			panic("bad hash " + h)
		}
		var x tlog.Hash
		copy(x[:], b)
		out = append(out, x)
	}
	return out
}

func equal(a, b []tlog.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func treeHash(line int, n int64) tlog.Hash {
	th, err := tlog.TreeHash(n, reader())
	if err != nil {
		fail(line, "TreeHash(%d): %v", n, err)
	}
	return th
}

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	checks, line := 0, 0
	for scanner.Scan() {
		line++
		w := strings.Fields(scanner.Text())
		if len(w) == 0 {
			continue
		}
		num := func(i int) int64 {
			v, err := strconv.ParseInt(w[i], 10, 64)
			if err != nil {
				fail(line, "bad number %q", w[i])
			}
			return v
		}
		switch w[0] {
		case "leaf":
			data, err := hex.DecodeString(w[1])
			if err != nil {
				fail(line, "bad leaf")
			}
			h, err := tlog.StoredHashes(int64(len(leaves)), data, reader())
			if err != nil {
				fail(line, "StoredHashes: %v", err)
			}
			stored = append(stored, h...)
			leaves = append(leaves, data)
		case "root":
			if got := treeHash(line, num(1)); hex.EncodeToString(got[:]) != w[2] {
				fail(line, "TreeHash(%d) = %x, ours %s", num(1), got[:], w[2])
			}
		case "incl":
			index, size, proof := num(1), num(2), hashes(w[3])
			if err := tlog.CheckRecord(tlog.RecordProof(proof), size, treeHash(line, size), index, tlog.RecordHash(leaves[index])); err != nil {
				fail(line, "CheckRecord(%d in %d): %v", index, size, err)
			}
			theirs, err := tlog.ProveRecord(size, index, reader())
			if err != nil || !equal(theirs, proof) {
				fail(line, "ProveRecord(%d in %d) differs: %v", index, size, err)
			}
		case "cons":
			old, size, proof := num(1), num(2), hashes(w[3])
			if err := tlog.CheckTree(tlog.TreeProof(proof), size, treeHash(line, size), old, treeHash(line, old)); err != nil {
				fail(line, "CheckTree(%d to %d): %v", old, size, err)
			}
			theirs, err := tlog.ProveTree(size, old, reader())
			if err != nil || !equal(theirs, proof) {
				fail(line, "ProveTree(%d to %d) differs: %v", old, size, err)
			}
		case "verify":
			v, err := note.NewVerifier(w[1])
			if err != nil {
				fail(line, "NewVerifier(%s): %v", w[1], err)
			}
			msg, _ := base64.StdEncoding.DecodeString(w[2])
			n, err := note.Open(msg, note.VerifierList(v))
			if err != nil {
				fail(line, "Open: %v", err)
			}
			fmt.Println("verified", base64.StdEncoding.EncodeToString([]byte(n.Text)))
		case "sign":
			s, err := note.NewSigner(w[1])
			if err != nil {
				fail(line, "NewSigner: %v", err)
			}
			text, _ := base64.StdEncoding.DecodeString(w[2])
			msg, err := note.Sign(&note.Note{Text: string(text)}, s)
			if err != nil {
				fail(line, "Sign: %v", err)
			}
			fmt.Println("signed", base64.StdEncoding.EncodeToString(msg))
		default:
			fail(line, "unknown command %q", w[0])
		}
		checks++
	}
	fmt.Printf("ok %d\n", checks)
}
