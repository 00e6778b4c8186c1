package main

import (
	"fmt"

	corelisters "k8s.io/client-go/listers/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/zonesync/zonesync/inventory"
)

// inventoryPath is where the metrics server serves the inventory.
const inventoryPath = "/inventory"

// newInventory returns the inventory of the DNS controller's records:
// grouped by the value of the cfg.groupLabel label of their Service, read
// from the Service informer's cache (services), else "unassigned".
func newInventory(services corelisters.ServiceLister, cfg config) (*inventory.Inventory, error) {
	inv, err := inventory.New(inventory.Options{
		Groups: inventory.GroupMapping{LabelKeys: []string{cfg.groupLabel}, Default: "unassigned"},
		ObjectLabels: func(o inventory.Object) map[string]string {
			if o.Kind != serviceResourceKind || services == nil {
				return nil
			}
			svc, err := services.Services(o.Namespace).Get(o.Name)
			if err != nil {
				return nil // deleted since: its records go with it
			}
			return svc.Labels
		},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the inventory: %w", err)
	}
	return inv, nil
}

// serveInventory adds the inventory's page and JSON to the manager's
// metrics server (nothing when it is off). Every replica serves it; a
// follower, which runs no cycle, shows "No cycle yet".
func serveInventory(mgr ctrl.Manager, inv *inventory.Inventory) error {
	h, err := inventory.NewHandler(inv, inventory.HandlerOptions{Title: "zonesync operator: DNS inventory"})
	if err != nil {
		return err
	}
	if err := mgr.AddMetricsServerExtraHandler(inventoryPath, h); err != nil {
		return fmt.Errorf("serving the inventory: %w", err)
	}
	// Without an Options.Verifier, Run only waits; with one it checks
	// every record in the background after each cycle.
	if err := mgr.Add(manager.RunnableFunc(inv.Run)); err != nil {
		return fmt.Errorf("registering the inventory: %w", err)
	}
	return nil
}
