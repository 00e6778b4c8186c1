package txt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// ErrInvalidConfig is wrapped by every error [New] returns for a bad
// [Config]; the message names the field at fault.
var ErrInvalidConfig = errors.New("invalid TXT registry configuration")

// Alias TXT types for [Config.AliasTXTType].
const (
	// AliasTXTTypeA names the ownership TXT of an A ALIAS record after its
	// own type ("a-…"), as external-dns v0.22 and later do.
	AliasTXTTypeA = "a"
	// AliasTXTTypeCNAME names it "cname-…", as external-dns v0.21 and
	// earlier do; choose it while external-dns ≤ v0.21 still reads the zone.
	AliasTXTTypeCNAME = "cname"
)

// EncryptionMode is what a [Registry] with a [Config.EncryptionKey] does
// with the key.
type EncryptionMode int

const (
	// EncryptionReadWrite, the zero value: values are decrypted when read
	// and written encrypted.
	EncryptionReadWrite EncryptionMode = iota
	// EncryptionDecryptOnly: encrypted values are decrypted when read, but
	// values are written in plain text. An update or delete of a TXT read
	// encrypted still names its old value exactly as read; the new value
	// is plain. Use it to roll encryption out (every instance can read
	// encrypted values before any instance writes them) or back (values
	// get rewritten in plain text while those still encrypted remain
	// readable; remove the key once none is left).
	EncryptionDecryptOnly
)

// Config configures a [Registry]. Only OwnerID is required. Prefix, Suffix
// and WildcardReplacement must never change once records exist: the
// ownership TXT records written before would no longer be found and the
// records they own would be orphaned.
type Config struct {
	// OwnerID is written as the owner of every record created (required).
	// Records whose ownership TXT names another owner are left alone.
	OwnerID string

	// Prefix is put before the first label of the owned name to form the
	// TXT name; Suffix after it. They are mutually exclusive and
	// lower-cased. Either may contain "%{record_type}", replaced by the
	// lower-case record type; without it the type is written as
	// "<type>-" in front of the first label. Empty: "a-app.example.com"
	// for app.example.com/A. See the package documentation, "Naming".
	//
	// [New] refuses a prefix or suffix with which no record could have an
	// ownership TXT record: one whose TXT names are not valid DNS names
	// even for the shortest record name (a one-character first label, as
	// in x.example.com), because of a character other than letters,
	// digits, "-", "_" and "*" ("edns!", "ed ns-"), an empty label
	// ("txt..", a Suffix ending in a dot) or a label over 63 octets. With
	// such an affix (which external-dns accepts) every create would be
	// skipped as unownable ([Registry.CheckOwnable]).
	Prefix, Suffix string

	// WildcardReplacement replaces a leading "*" label in TXT names
	// ("*.apps.example.com" → TXT for "any.apps.example.com"), since many
	// providers reject "*" anywhere but first. Lower-cased. Empty: keep "*".
	WildcardReplacement string

	// ManagedRecordTypes are the record types the registry manages: the
	// planner manages exactly these ([Registry.Ownership] reports them to a
	// Reconciler), and a record of one of them whose typed ownership TXT is
	// missing gets it rewritten (see "Format upgrade" in the package
	// documentation). Types are compared case-insensitively and reported
	// in upper case, blank entries and duplicates removed
	// ([endpoint.ManagedTypes]). Empty: A, AAAA and CNAME, the planner's
	// default.
	ManagedRecordTypes []string

	// ExcludeRecordTypes are removed from ManagedRecordTypes, compared
	// case-insensitively. Excluding every managed type is an error.
	// Empty: none.
	ExcludeRecordTypes []string

	// EncryptionKey is the key of encrypted ownership values (AES-256-GCM, as
	// external-dns encrypts them): 32 bytes used verbatim, or the standard base64
	// encoding of 32 bytes. With a key, encrypted values are decrypted
	// when read (plain values are still read) and, by default, values are
	// written encrypted: see EncryptionMode. Empty: plain text only.
	EncryptionKey []byte

	// EncryptionMode says whether values are written encrypted when
	// EncryptionKey is set. The zero value, [EncryptionReadWrite], does;
	// [EncryptionDecryptOnly] writes plain values and only decrypts
	// (external-dns with --txt-encrypt-aes-key but without
	// --txt-encrypt-enabled), for rolling encryption out or back.
	EncryptionMode EncryptionMode

	// OldOwnerID, when set, hands records owned by that owner id over to
	// OwnerID: they are read as ours, and the next plan rewrites their
	// ownership TXT with the new owner (migration from another instance or
	// a renamed owner). Empty: no migration.
	OldOwnerID string

	// AliasTXTType chooses the TXT name of A records with the alias
	// provider-specific property set to "true" or "A": [AliasTXTTypeA]
	// (also the meaning of "") or [AliasTXTTypeCNAME]. Both names are read
	// whatever the choice, the chosen one first.
	AliasTXTType string

	// Shared, when set, turns on shared mode for the names and types it
	// selects: several owners publish one record set together, each
	// contributing its targets (see the package documentation, "Shared
	// record sets"). Nil: off, every record has one owner.
	Shared *SharedConfig
}

// validate checks cfg and returns the derived settings.
func (cfg Config) validate() (txtNamer, []byte, []string, error) {
	var errs []error
	if cfg.OwnerID == "" {
		errs = append(errs, errors.New("OwnerID must not be empty: set it to the name this instance owns records under "+
			"(to take over a zone external-dns manages, its --txt-owner-id, whose default is \"default\")"))
	}
	if cfg.OldOwnerID != "" && cfg.OldOwnerID == cfg.OwnerID {
		errs = append(errs, fmt.Errorf("OldOwnerID %q equals OwnerID: set OldOwnerID to the owner id whose records this instance takes over, or leave it empty", cfg.OldOwnerID))
	}
	if cfg.OwnerID == SharedOwnerID || cfg.OldOwnerID == SharedOwnerID {
		errs = append(errs, fmt.Errorf("OwnerID or OldOwnerID %q: the owner of shared record sets is no owner id: choose another", SharedOwnerID))
	}
	if strings.Contains(cfg.OwnerID, ",") {
		errs = append(errs, fmt.Errorf("OwnerID %q must not contain \",\" (ownership values have no escaping): choose an owner id without it", cfg.OwnerID))
	}
	switch cfg.AliasTXTType {
	case "", AliasTXTTypeA, AliasTXTTypeCNAME:
	default:
		errs = append(errs, fmt.Errorf("AliasTXTType %q: want %q or %q", cfg.AliasTXTType, AliasTXTTypeA, AliasTXTTypeCNAME))
	}
	var key []byte
	if len(cfg.EncryptionKey) > 0 {
		k, err := endpoint.ParseEncryptionKey(cfg.EncryptionKey)
		if err != nil {
			errs = append(errs, fmt.Errorf("EncryptionKey: %w: give the key the zone's ownership values are encrypted with, 32 bytes or their standard base64 "+
				"(external-dns's --txt-encrypt-aes-key); values encrypted with another key do not read as ownership records, and the records they own are left unowned", err))
		}
		key = k
	}
	switch cfg.EncryptionMode {
	case EncryptionReadWrite:
	case EncryptionDecryptOnly:
		if len(cfg.EncryptionKey) == 0 {
			errs = append(errs, errors.New("EncryptionMode EncryptionDecryptOnly needs an EncryptionKey: set the key the values were encrypted with, or use EncryptionReadWrite without a key for plain text"))
		}
	default:
		errs = append(errs, fmt.Errorf("EncryptionMode %d: want EncryptionReadWrite or EncryptionDecryptOnly", cfg.EncryptionMode))
	}
	var namer txtNamer
	if cfg.Prefix != "" && cfg.Suffix != "" {
		errs = append(errs, fmt.Errorf("Prefix %q and Suffix %q are mutually exclusive: keep the one the zone's ownership TXT records were written with "+
			"(records owned under the other naming would read as unowned and be left as they are)", cfg.Prefix, cfg.Suffix))
	} else {
		namer, _ = newTXTNamer(cfg.Prefix, cfg.Suffix, cfg.WildcardReplacement) // cannot fail: checked above
		if err := namer.checkAffix(); err != nil {
			field, value := "Prefix", cfg.Prefix
			if cfg.Suffix != "" {
				field, value = "Suffix", cfg.Suffix
			}
			errs = append(errs, fmt.Errorf("%s %q cannot form the name of any ownership TXT record (%w): no record could be owned; "+
				"change it so that the TXT name is a valid DNS name (%q stands for the record type)",
				field, value, err, RecordTypeTemplate))
		}
	}
	managed, err := endpoint.ManagedTypes(cfg.ManagedRecordTypes, cfg.ExcludeRecordTypes)
	if err != nil {
		errs = append(errs, fmt.Errorf("ManagedRecordTypes, ExcludeRecordTypes: %w", err))
	}
	if len(errs) > 0 {
		return txtNamer{}, nil, nil, fmt.Errorf("txt: %w: %w", ErrInvalidConfig, errors.Join(errs...))
	}
	return namer, key, managed, nil
}
