package rfc2136

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxTSIGKeyFileSize is the largest key file [LoadTSIGKeyFile] reads and
// the largest input [ParseTSIGKey] parses, in bytes (64 KiB). A file of
// tsig-keygen holds about a hundred; the bound keeps a wrong path (a log
// file, a device) from being read whole.
const MaxTSIGKeyFileSize = 64 << 10

// LoadTSIGKeyFile reads the TSIG key of a BIND key file, such as the one
// tsig-keygen writes and named.conf includes, so that a program and its
// name server share one copy of the secret:
//
//	key "zonesync" {
//		algorithm hmac-sha256;
//		secret "rHMXhFuqOf5doeVTPm/CkCwRnXQRZCOyfKTo4LsBDkc=";
//	};
//
// The file is parsed by [ParseTSIGKey] and must hold exactly one key
// statement. A file larger than [MaxTSIGKeyFileSize] is refused without
// being read whole. The key returned goes into [Config.TSIG] as it is.
// Errors name the file and, for a bad key, the line, key and field at
// fault; they never hold the secret.
func LoadTSIGKeyFile(path string) (*TSIG, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rfc2136: TSIG key file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTSIGKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("rfc2136: TSIG key file %s: %w", path, err)
	}
	key, err := parseTSIGKey(data)
	if err != nil {
		return nil, fmt.Errorf("rfc2136: TSIG key file %s: %w", path, err)
	}
	return key, nil
}

// ParseTSIGKey parses the TSIG key of data in the syntax of BIND's
// named.conf: exactly one key statement,
//
//	key "name" { algorithm hmac-sha256; secret "base64"; };
//
// with the name, algorithm and secret quoted or not, "#", "//" and "/* */"
// comments anywhere between tokens, and a backslash escaping the next
// character inside quotes. Other top-level statements (options, zone,
// include, ...) are skipped, but must be well formed; key statements
// nested in them (in a view) are not read. Keywords are not case
// sensitive.
//
// A file with several keys is refused, naming them: pick the key by
// giving a file of its own, as tsig-keygen writes one. The algorithm must
// be one that [New] supports (hmac-sha256 or hmac-sha512) and the secret
// standard base64, non-empty; the fields of the key returned are as
// written, without surrounding blanks. Input larger than
// [MaxTSIGKeyFileSize] is refused. Errors name the line, key and field at
// fault, never the secret.
func ParseTSIGKey(data []byte) (*TSIG, error) {
	key, err := parseTSIGKey(data)
	if err != nil {
		return nil, fmt.Errorf("rfc2136: TSIG key: %w", err)
	}
	return key, nil
}

// keyFormat shows the expected syntax in errors.
const keyFormat = `as tsig-keygen writes it: key "name" { algorithm hmac-sha256; secret "..."; };`

// parseTSIGKey is ParseTSIGKey without the "rfc2136: TSIG key" context.
func parseTSIGKey(data []byte) (*TSIG, error) {
	if len(data) > MaxTSIGKeyFileSize {
		return nil, fmt.Errorf("larger than %d bytes (%d KiB): not a key file", MaxTSIGKeyFileSize, MaxTSIGKeyFileSize>>10)
	}
	toks, err := lexConf(bytes.TrimPrefix(data, []byte("\ufeff"))) // a byte order mark, as some editors write
	if err != nil {
		return nil, err
	}
	keys, err := keyStatements(toks)
	if err != nil {
		return nil, err
	}
	switch len(keys) {
	case 0:
		return nil, fmt.Errorf("no key statement (%s)", keyFormat)
	case 1:
	default:
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = fmt.Sprintf("%q (line %d)", k.name, k.line)
		}
		return nil, fmt.Errorf("%d key statements, %s: want one; give a file holding only the key to use", len(keys), strings.Join(names, ", "))
	}
	k := keys[0]
	name := strings.TrimSpace(k.name)
	if name == "" {
		return nil, fmt.Errorf("line %d: key name is empty", k.line)
	}
	if k.algorithm == nil {
		return nil, fmt.Errorf("line %d: key %q has no algorithm (%s)", k.line, k.name, keyFormat)
	}
	if k.secret == nil {
		return nil, fmt.Errorf("line %d: key %q has no secret (%s)", k.line, k.name, keyFormat)
	}
	alg := strings.TrimSpace(k.algorithm.text)
	if _, ok := tsigAlgorithm(alg); !ok {
		return nil, fmt.Errorf("line %d: key %q: algorithm %q is not supported: use hmac-sha256 or hmac-sha512", k.algorithm.line, k.name, alg)
	}
	secret := strings.TrimSpace(k.secret.text)
	if secret == "" {
		return nil, fmt.Errorf("line %d: key %q: secret is empty", k.secret.line, k.name)
	}
	if err := checkTSIGSecret(secret); err != nil {
		// Not quoted: the secret must not land in logs.
		return nil, fmt.Errorf("line %d: key %q: secret is not standard base64: %w", k.secret.line, k.name, err)
	}
	return &TSIG{KeyName: name, Algorithm: alg, Secret: secret}, nil
}

// keyStmt is a key statement as written: the fields present, unchecked.
type keyStmt struct {
	name              string
	line              int
	algorithm, secret *confToken // nil: absent
}

// keyStatements returns the top-level key statements of toks, in order,
// and checks that every other top-level statement is well formed.
func keyStatements(toks []confToken) ([]keyStmt, error) {
	var keys []keyStmt
	for i := 0; toks[i].kind != tokEOF; {
		t := toks[i]
		switch {
		case t.kind == tokSemi:
			i++ // an empty statement
		case t.kind == tokWord && strings.EqualFold(t.text, "key"):
			k, next, err := keyStatement(toks, i)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
			i = next
		default:
			next, err := skipStatement(toks, i)
			if err != nil {
				return nil, err
			}
			i = next
		}
	}
	return keys, nil
}

// keyStatement parses the key statement at toks[i] ("key") and returns it
// and the index after its ";".
func keyStatement(toks []confToken, i int) (keyStmt, int, error) {
	k := keyStmt{line: toks[i].line}
	i++
	switch t := toks[i]; t.kind {
	case tokWord, tokString:
		k.name = t.text
		i++
	default:
		return k, 0, fmt.Errorf("line %d: key statement without a name (%s)", t.line, keyFormat)
	}
	if t := toks[i]; t.kind != tokLBrace {
		return k, 0, fmt.Errorf("line %d: key %q: want \"{\" after the name, found %s", t.line, k.name, t.describe())
	}
	i++
	for toks[i].kind != tokRBrace {
		clause := toks[i]
		if clause.kind == tokSemi {
			i++
			continue
		}
		if clause.kind != tokWord {
			return k, 0, fmt.Errorf("line %d: key %q: want algorithm or secret, found %s", clause.line, k.name, clause.describe())
		}
		var field **confToken
		switch strings.ToLower(clause.text) {
		case "algorithm":
			field = &k.algorithm
		case "secret":
			field = &k.secret
		default:
			return k, 0, fmt.Errorf("line %d: key %q: unknown field %q: a key statement holds algorithm and secret", clause.line, k.name, clause.text)
		}
		name := strings.ToLower(clause.text)
		if *field != nil {
			return k, 0, fmt.Errorf("line %d: key %q: %s given twice (first on line %d)", clause.line, k.name, name, (*field).line)
		}
		v := toks[i+1]
		if v.kind != tokWord && v.kind != tokString {
			return k, 0, fmt.Errorf("line %d: key %q: %s without a value", clause.line, k.name, name)
		}
		if end := toks[i+2]; end.kind != tokSemi {
			// The token found is not shown: after secret it may be part of
			// the secret.
			return k, 0, fmt.Errorf("line %d: key %q: want \";\" after the %s value", end.line, k.name, name)
		}
		*field = &toks[i+1]
		i += 3
	}
	i++ // "}"
	if t := toks[i]; t.kind != tokSemi {
		return k, 0, fmt.Errorf("line %d: key %q: want \";\" after \"}\", found %s", t.line, k.name, t.describe())
	}
	return k, i + 1, nil
}

// skipStatement returns the index after the ";" that ends the statement
// starting at toks[i], over any nested blocks.
func skipStatement(toks []confToken, i int) (int, error) {
	start := toks[i]
	depth := 0
	for ; ; i++ {
		t := toks[i]
		switch t.kind {
		case tokEOF:
			if depth > 0 {
				return 0, fmt.Errorf("line %d: statement %s: a \"{\" is not closed", start.line, start.describe())
			}
			return 0, fmt.Errorf("line %d: statement %s: no \";\" at its end", start.line, start.describe())
		case tokLBrace:
			depth++
		case tokRBrace:
			if depth == 0 {
				return 0, fmt.Errorf("line %d: unexpected \"}\"", t.line)
			}
			depth--
		case tokSemi:
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
}

// confToken is a token of named.conf syntax.
type confToken struct {
	kind tokKind
	text string // the word, or the quoted string without quotes and escapes
	line int    // 1-based
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokString
	tokLBrace
	tokRBrace
	tokSemi
)

// describe names t for an error message.
func (t confToken) describe() string {
	switch t.kind {
	case tokEOF:
		return "the end of the input"
	case tokWord:
		return fmt.Sprintf("%q", t.text)
	case tokString:
		return "a quoted string"
	case tokLBrace:
		return `"{"`
	case tokRBrace:
		return `"}"`
	default:
		return `";"`
	}
}

// errUnterminated is wrapped by the lexer's errors for a quoted string or
// comment without its end.
var errUnterminated = errors.New("not terminated")

// lexConf splits data into tokens of named.conf syntax, dropping blanks
// and comments ("#" and "//" to the end of the line, "/* */"); the last
// token is tokEOF.
func lexConf(data []byte) ([]confToken, error) {
	var toks []confToken
	line := 1
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			start := line
			i += 2
			for {
				if i+1 >= len(data) {
					return nil, fmt.Errorf("line %d: comment \"/*\" %w", start, errUnterminated)
				}
				if data[i] == '*' && data[i+1] == '/' {
					i += 2
					break
				}
				if data[i] == '\n' {
					line++
				}
				i++
			}
		case c == '{':
			toks = append(toks, confToken{kind: tokLBrace, line: line})
			i++
		case c == '}':
			toks = append(toks, confToken{kind: tokRBrace, line: line})
			i++
		case c == ';':
			toks = append(toks, confToken{kind: tokSemi, line: line})
			i++
		case c == '"':
			start := line
			var b strings.Builder
			i++
			for {
				if i >= len(data) {
					return nil, fmt.Errorf("line %d: quoted string %w", start, errUnterminated)
				}
				c := data[i]
				if c == '"' {
					i++
					break
				}
				if c == '\\' && i+1 < len(data) {
					i++
					c = data[i]
				}
				if c == '\n' {
					line++
				}
				b.WriteByte(c)
				i++
			}
			toks = append(toks, confToken{kind: tokString, text: b.String(), line: start})
		default:
			j := i
			for j < len(data) && !isConfDelimiter(data, j) {
				j++
			}
			toks = append(toks, confToken{kind: tokWord, text: string(data[i:j]), line: line})
			i = j
		}
	}
	return append(toks, confToken{kind: tokEOF, line: line}), nil
}

// isConfDelimiter reports whether data[j] ends a word: a blank, a brace,
// ";", a quote or the start of a comment.
func isConfDelimiter(data []byte, j int) bool {
	switch c := data[j]; c {
	case ' ', '\t', '\r', '\n', '\f', '\v', '{', '}', ';', '"', '#':
		return true
	case '/':
		return j+1 < len(data) && (data[j+1] == '/' || data[j+1] == '*')
	}
	return false
}
