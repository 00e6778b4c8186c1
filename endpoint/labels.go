package endpoint

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Label keys with a meaning in zonesync and external-dns.
const (
	// OwnerLabelKey holds the owner id of the registry that owns a record.
	OwnerLabelKey = "owner"
	// ResourceLabelKey holds the Kubernetes object a record comes from,
	// as "kind/namespace/name".
	ResourceLabelKey = "resource"
	// OwnedRecordLabelKey is set on generated ownership TXT endpoints only and
	// holds the name of the record they own.
	OwnedRecordLabelKey = "ownedRecord"
	// TxtEncryptionNonceLabelKey holds the nonce of an encrypted ownership
	// TXT so that re-serialising gives the same bytes. It is never written
	// into a TXT value; the TXT registry sets it on the records it sends
	// while encrypting, as external-dns does (package registry/txt).
	TxtEncryptionNonceLabelKey = "txt-encryption-nonce"
)

// IsReservedLabelKey reports whether key is one of the labels the
// registry and sources set themselves ([OwnerLabelKey], [ResourceLabelKey],
// [OwnedRecordLabelKey], [TxtEncryptionNonceLabelKey]). Labels taken from
// outside input (a DNSEndpoint's spec, say) must not use these keys: they
// would claim or hand over ownership, tie records to another object, or
// choose the nonce an ownership TXT is encrypted with.
func IsReservedLabelKey(key string) bool {
	switch key {
	case OwnerLabelKey, ResourceLabelKey, OwnedRecordLabelKey, TxtEncryptionNonceLabelKey:
		return true
	}
	return false
}

const (
	heritage        = "external-dns"
	heritageKey     = "heritage"
	labelKeyPrefix  = "external-dns/"
	encryptionKeyLn = 32
	nonceLength     = 12
)

var (
	// ErrInvalidHeritage is returned (wrapped) by [ParseLabels] when a text
	// is not an external-dns ownership record: its heritage is missing or
	// names somebody else.
	ErrInvalidHeritage = errors.New("heritage is unknown or not found")
	// ErrDecryption is returned (wrapped) when an encrypted label text cannot
	// be decrypted with the given key.
	ErrDecryption = errors.New("cannot decrypt label text")
)

// ParseLabels parses the text of an ownership TXT record, the one parser of
// that format in zonesync. The rules are external-dns's: every leading and
// trailing double quote is stripped; the text is split at ","; tokens
// without "=" are ignored; each other token is split at its first "=" into
// key and value. Key "heritage" must have the value "external-dns"; a key
// that starts with "external-dns" gives the label named by the key without
// its "external-dns/" prefix; other keys are ignored. A text without
// heritage=external-dns, or with a heritage token of any other value, gives
// an error wrapping [ErrInvalidHeritage] that quotes the text: the record is
// not ours.
//
// A plain ownership text is parsed with at most one allocation, the slice of
// labels (none when the text has no label).
func ParseLabels(text string) (Labels, error) {
	labels, ok := parsePlain(text)
	if !ok {
		return Labels{}, fmt.Errorf("label text %q: %w", text, ErrInvalidHeritage)
	}
	return labels, nil
}

// parsePlain parses a plain ownership text; ok is false when the text is not
// ours. It allocates the slice of labels and nothing else: at the first
// label, room for one label per remaining token.
func parsePlain(text string) (labels Labels, ok bool) {
	s := strings.Trim(text, `"`)
	sawHeritage := false
	var pairs []labelPair
	for {
		token, rest, more := strings.Cut(s, ",")
		if key, value, hasValue := strings.Cut(token, "="); hasValue {
			switch {
			case key == heritageKey:
				if value != heritage {
					return Labels{}, false
				}
				sawHeritage = true
			case strings.HasPrefix(key, heritage):
				if pairs == nil {
					n := 1 // this token and every one after it
					if more {
						n += strings.Count(rest, ",") + 1
					}
					pairs = make([]labelPair, 0, n)
				}
				pairs = insertPair(pairs, strings.TrimPrefix(key, labelKeyPrefix), value)
			}
		}
		if !more {
			break
		}
		s = rest
	}
	if !sawHeritage {
		return Labels{}, false
	}
	return Labels{pairs: pairs}, true
}

// insertPair sets key to value in pairs, sorted by key and owned by the
// caller, in place: a key given twice keeps its last value.
func insertPair(pairs []labelPair, key, value string) []labelPair {
	if n := len(pairs); n == 0 || pairs[n-1].key < key {
		return append(pairs, labelPair{key, value}) // texts we write are in key order
	}
	i, found := Labels{pairs: pairs}.find(key)
	if found {
		pairs[i].value = value
		return pairs
	}
	if i == len(pairs) {
		return append(pairs, labelPair{key, value})
	}
	pairs = append(pairs, labelPair{})
	copy(pairs[i+1:], pairs[i:])
	pairs[i] = labelPair{key, value}
	return pairs
}

// ParseLabelsWithKey parses an ownership TXT text that may be encrypted. With
// a non-empty aesKey (32 bytes, see [ParseEncryptionKey]) it first tries to
// decrypt the text; on success the nonce is kept in the
// [TxtEncryptionNonceLabelKey] label so that [Labels.SerializeEncrypted]
// reproduces the same bytes. When decryption fails the text is parsed as
// plain text, as external-dns does.
func ParseLabelsWithKey(text string, aesKey []byte) (Labels, error) {
	if len(aesKey) == 0 {
		return ParseLabels(text)
	}
	plain, nonce, err := decryptText(strings.Trim(text, `"`), aesKey)
	if err != nil {
		return ParseLabels(text)
	}
	labels, err := ParseLabels(plain)
	if err != nil {
		return Labels{}, err
	}
	labels.Set(TxtEncryptionNonceLabelKey, nonce)
	return labels, nil
}

// Serialize returns the plain text form of the labels, in canonical order
// (heritage first, then keys in byte order); the encryption nonce label is
// never included. With withQuotes the text is wrapped in double quotes, as
// it is stored in a TXT target.
//
// Callers validate the labels with [ValidateLabels] first: Serialize cannot
// report an error. As a last line of defence it leaves out every label that
// would not read back as itself: a key holding "," or "=", a value holding
// "," or ending with a double quote. No key or value can therefore add a
// label to the text or change another one (an owner, say). Every label
// [ParseLabels] can return passes that check, so labels read from a TXT
// record are written back unchanged; the other characters ValidateLabels
// refuses concern how providers store the text, not how it parses, and are
// the callers' to check.
func (l Labels) Serialize(withQuotes bool) string {
	size := len(heritageKey) + 1 + len(heritage) + 2
	for _, p := range l.pairs {
		size += 1 + len(labelKeyPrefix) + len(p.key) + 1 + len(p.value)
	}
	var b strings.Builder
	b.Grow(size)
	if withQuotes {
		b.WriteByte('"')
	}
	b.WriteString(heritageKey)
	b.WriteByte('=')
	b.WriteString(heritage)
	for _, p := range l.pairs {
		if p.key == TxtEncryptionNonceLabelKey || !readsBack(p.key, p.value) {
			continue
		}
		b.WriteByte(',')
		b.WriteString(labelKeyPrefix)
		b.WriteString(p.key)
		b.WriteByte('=')
		b.WriteString(p.value)
	}
	if withQuotes {
		b.WriteByte('"')
	}
	return b.String()
}

// SerializeEncrypted returns the encrypted text form of the labels, as
// external-dns encrypts ownership TXT values: the plain text (see
// [Labels.Serialize]) compressed with gzip (level 9, flushed, closed), then
// sealed with AES-256-GCM without associated data; the result is the standard
// base64 of nonce ‖ ciphertext ‖ tag, in double quotes with withQuotes. The
// nonce is taken from the [TxtEncryptionNonceLabelKey] label when present, so
// the same labels give the same ciphertext; otherwise a random 12-byte nonce
// is used. The labels are not modified.
//
// As with Serialize, callers validate the labels with [ValidateLabels]
// first; a label that would not read back as itself is left out of the
// encrypted text.
func (l Labels) SerializeEncrypted(aesKey []byte, withQuotes bool) (string, error) {
	var nonce []byte
	if encoded, ok := l.Get(TxtEncryptionNonceLabelKey); ok {
		n, err := base64.StdEncoding.DecodeString(encoded)
		if err != nil || len(n) != nonceLength {
			return "", fmt.Errorf("label %s=%q: not a base64 %d-byte nonce", TxtEncryptionNonceLabelKey, encoded, nonceLength)
		}
		nonce = n
	} else {
		nonce = make([]byte, nonceLength)
		if _, err := io.ReadFull(rand.Reader, nonce); err != nil {
			return "", fmt.Errorf("generating nonce: %w", err)
		}
	}
	text, err := encryptText(l.Serialize(false), aesKey, nonce)
	if err != nil {
		return "", err
	}
	if withQuotes {
		return `"` + text + `"`, nil
	}
	return text, nil
}

// ParseEncryptionKey turns a configured key into the 32-byte AES-256 key:
// a 32-byte value is used verbatim, anything else must be the standard
// base64 encoding (with "+", "/" and "=" padding) of 32 bytes.
func ParseEncryptionKey(key []byte) ([]byte, error) {
	if len(key) == encryptionKeyLn {
		return slices.Clone(key), nil
	}
	decoded, err := base64.StdEncoding.DecodeString(string(key))
	if err != nil {
		return nil, fmt.Errorf("encryption key of %d bytes is neither 32 bytes nor standard base64: %w", len(key), err)
	}
	if len(decoded) != encryptionKeyLn {
		return nil, fmt.Errorf("encryption key decodes from base64 to %d bytes, want %d", len(decoded), encryptionKeyLn)
	}
	return decoded, nil
}

// encryptText encrypts text the way external-dns encrypts ownership TXT
// values: gzip (level 9, flushed, closed), then AES-256-GCM with the given
// 12-byte nonce and no associated data; the result is the standard base64 of
// nonce ‖ ciphertext ‖ tag, without quotes.
func encryptText(text string, aesKey, nonce []byte) (string, error) {
	if len(nonce) != nonceLength {
		return "", fmt.Errorf("nonce is %d bytes, want %d", len(nonce), nonceLength)
	}
	aead, err := newGCM(aesKey)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", fmt.Errorf("compressing label text: %w", err)
	}
	if _, err := zw.Write([]byte(text)); err != nil {
		return "", fmt.Errorf("compressing label text: %w", err)
	}
	if err := zw.Flush(); err != nil {
		return "", fmt.Errorf("compressing label text: %w", err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("compressing label text: %w", err)
	}
	sealed := aead.Seal(slices.Clone(nonce), nonce, buf.Bytes(), nil)
	return base64.StdEncoding.EncodeToString(sealed), nil
}

// decryptText reverses encryptText: it returns the plain text and the nonce
// (standard base64). Errors wrap [ErrDecryption].
func decryptText(text string, aesKey []byte) (plain, nonce string, err error) {
	aead, err := newGCM(aesKey)
	if err != nil {
		return "", "", err
	}
	data, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return "", "", fmt.Errorf("%w: not base64: %w", ErrDecryption, err)
	}
	if len(data) < nonceLength+aead.Overhead() {
		return "", "", fmt.Errorf("%w: %d bytes is too short", ErrDecryption, len(data))
	}
	n, sealed := data[:nonceLength], data[nonceLength:]
	compressed, err := aead.Open(nil, n, sealed, nil)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrDecryption, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return "", "", fmt.Errorf("%w: decompressing: %w", ErrDecryption, err)
	}
	// Ownership texts are small; refuse anything that inflates beyond 1 MiB.
	out, err := io.ReadAll(io.LimitReader(zr, 1<<20+1))
	if err != nil {
		return "", "", fmt.Errorf("%w: decompressing: %w", ErrDecryption, err)
	}
	if len(out) > 1<<20 {
		return "", "", fmt.Errorf("%w: decompressed text exceeds 1 MiB", ErrDecryption)
	}
	return string(out), base64.StdEncoding.EncodeToString(n), nil
}

func newGCM(aesKey []byte) (cipher.AEAD, error) {
	if len(aesKey) != encryptionKeyLn {
		return nil, fmt.Errorf("AES key is %d bytes, want %d", len(aesKey), encryptionKeyLn)
	}
	block, err := aes.NewCipher(aesKey)
	if err != nil {
		return nil, fmt.Errorf("creating AES cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("creating GCM: %w", err)
	}
	return aead, nil
}

// ValidateLabels checks that every label can be written into the text of an
// ownership TXT record (see [Labels]) and read back as itself, and as
// nothing else. The text has no escaping, so a key or value holding one of
// its separators would let whoever sets a label add or override others:
// the value "x,external-dns/owner=victim" would write a second owner.
//
// Keys must not be empty. Keys and values must be valid UTF-8 and must not
// contain "," (separates labels), "=" (separates key and value), '"'
// (quotes the text), "\" (an escape in the zone-file notation TXT values
// are often handled in: "\044" is a ",") or control characters
// ([unicode.IsControl]: C0, DEL and C1). White space and other characters
// are allowed.
//
// The error names each offending label key (quoted) and the character with
// its offset, in key order. Empty labels are valid.
func ValidateLabels(l Labels) error {
	var errs []error
	for _, p := range l.pairs {
		if err := validateLabel(p.key, p.value); err != nil {
			errs = append(errs, fmt.Errorf("label %q: %w", p.key, err))
		}
	}
	return errors.Join(errs...)
}

// readsBack reports whether the label key=value, written into a label text,
// parses back as itself and as nothing else: see [Labels.Serialize].
func readsBack(key, value string) bool {
	return !strings.ContainsAny(key, ",=") && !strings.Contains(value, ",") && !strings.HasSuffix(value, `"`)
}

// validateLabel checks one label for [ValidateLabels]; the error does not
// name the key, the caller does.
func validateLabel(key, value string) error {
	if key == "" {
		return errors.New("key is empty")
	}
	if err := checkLabelText(key); err != nil {
		return fmt.Errorf("key %w", err)
	}
	if err := checkLabelText(value); err != nil {
		return fmt.Errorf("value %q %w", value, err)
	}
	return nil
}

// checkLabelText reports the first character of s that a label key or
// value must not hold. Plain ASCII text is checked without decoding.
func checkLabelText(s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ',' || c == '=' || c == '"' || c == '\\' || c < 0x20 || c == 0x7f {
				return fmt.Errorf("contains %q (%U at offset %d)", rune(c), rune(c), i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("is not valid UTF-8 (byte %#02x at offset %d)", c, i)
		}
		if unicode.IsControl(r) {
			return fmt.Errorf("contains control character %q (%U at offset %d)", r, r, i)
		}
		i += size
	}
	return nil
}
