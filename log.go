package zonesync

import (
	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/plan"
)

// maxLoggedUnownable bounds the records named by the log line of a cycle
// that skipped creates whose ownership cannot be recorded.
const maxLoggedUnownable = 10

// logUnownable logs, at V(0), the creates skipped because the registry
// could not record their ownership: a configuration problem (a TXT prefix
// that does not fit apex records, ...) that the cycle does not fail for.
func logUnownable(log logr.Logger, skipped []plan.Skip, n int) {
	records := make([]string, 0, min(n, maxLoggedUnownable))
	detail := ""
	for _, sk := range skipped {
		if sk.Reason != plan.SkipUnownable {
			continue
		}
		if detail == "" {
			detail = sk.Detail
		}
		if len(records) < maxLoggedUnownable {
			records = append(records, skipRecord(sk))
		}
	}
	log.Info("not creating records whose ownership the registry cannot record; change the registry settings to manage them",
		"count", n, "records", records, "firstReason", detail)
}

func skipRecord(sk plan.Skip) string {
	if sk.Endpoint == nil {
		return "<nil>"
	}
	return sk.Endpoint.Key().String()
}

func logChanges(log logr.Logger, c *plan.Changes) {
	for _, ep := range c.Create {
		log.Info("create", "record", ep.Key().String(), "targets", ep.Targets.String(), "ttl", int64(ep.RecordTTL))
	}
	for i, ep := range c.UpdateNew {
		kv := []any{"record", ep.Key().String(), "targets", ep.Targets.String(), "ttl", int64(ep.RecordTTL)}
		if i < len(c.UpdateOld) && c.UpdateOld[i] != nil {
			kv = append(kv, "oldTargets", c.UpdateOld[i].Targets.String(), "oldTTL", int64(c.UpdateOld[i].RecordTTL),
				"why", plan.Why(c.UpdateOld[i], ep).String())
		}
		log.Info("update", kv...)
	}
	for _, ep := range c.Delete {
		log.Info("delete", "record", ep.Key().String(), "targets", ep.Targets.String())
	}
}

// logCycle logs the end of a cycle: its error, when it failed or left out
// objects the source could not read, and its counts when it planned.
func logCycle(log logr.Logger, c *Cycle) {
	switch {
	case c.Err == nil:
	case isPartial(c.Err):
		log.Error(c.Err, "reconcile cycle left out objects the source could not read")
	default:
		log.Error(c.Err, "reconcile cycle failed", "records", c.Records, "desired", c.Desired,
			"create", c.Creates, "update", c.Updates, "delete", c.Deletes, "rejected", len(c.Rejected), "duration", c.Duration)
	}
	if c.Plan == nil || (c.Err != nil && !c.Applied && !isPartial(c.Err)) {
		return
	}
	kv := make([]any, 0, 20)
	kv = append(kv, "records", c.Records, "desired", c.Desired)
	if c.Owned >= 0 {
		kv = append(kv, "owned", c.Owned)
	}
	kv = append(kv, "create", c.Creates, "update", c.Updates, "delete", c.Deletes, "skipped", c.Skipped)
	if c.Unownable > 0 {
		kv = append(kv, "unownable", c.Unownable)
	}
	if c.Invalid > 0 {
		kv = append(kv, "invalid", c.Invalid)
	}
	kv = append(kv, "applied", c.Applied, "duration", c.Duration)
	log.Info("reconcile cycle finished", kv...)
}
