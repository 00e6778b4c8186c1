package externaldns

// ZoneListing returns how p lists its zones (the method or setting, as
// docs/providers.md names it) and, when it does not, why.
func ZoneListing(p *Provider) (how, why string) { return p.zones.how, p.zones.why }
