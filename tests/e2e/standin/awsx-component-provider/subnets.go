package main

import (
	"fmt"
	"math/bits"
	"net/netip"
	"slices"
	"strings"
)

// pulumi-awsx's "Legacy" subnet allocation (its default subnetStrategy) and its names, as
// awsx/ec2/subnetDistributorLegacy.ts, subnetNaming.ts and vpc.ts compute them at e60adf3c. The
// addresses follow the ip-address library's semantics that code relies on: an address keeps the
// bits it was written with (cidrSubnetV4 adds to them), while startAddress/endAddress mask them.

// defaultCIDRBlock is the VPC's CIDR block when cidrBlock is unset (vpc.ts, decideCidrBlockVpcInput:
// `return "10.0.0.0/16"`, "Historically this default was used when left unspecified").
const defaultCIDRBlock = "10.0.0.0/16"

// defaultAZCount is how many of the region's zones awsx uses when neither availabilityZoneNames nor
// numberOfAvailabilityZones is given (vpc.ts, getDefaultAzs: `const desiredCount = azCount ?? 3`).
const defaultAZCount = 3

// subnetSpec is one subnet awsx creates (subnetSpecs.ts, SubnetSpec).
type subnetSpec struct {
	azName    string
	cidrBlock string
	typ       string // Public, Private or Isolated
	// resourceName is the Pulumi resource name of the subnet, its route table, association and
	// route; nameTag its Name tag (the same under subnetNameTagStrategy "Legacy", awsx's default).
	resourceName, nameTag string
	// spec is the index of the subnetSpecs entry it comes from (its tags), -1 for awsx's default
	// layout.
	spec int
}

// address is an ip-address Address4: the 32-bit address as written (int64, so that the address
// before 0.0.0.0 can be represented, as BigInteger does) and its subnet mask.
type address struct {
	addr int64
	mask int
}

func parseAddress(s string) (address, error) {
	ip, bitsStr, hasMask := strings.Cut(s, "/")
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is4() {
		return address{}, fmt.Errorf("%q is not an IPv4 CIDR block", s)
	}
	mask := 32
	if hasMask {
		if _, err := fmt.Sscanf(bitsStr, "%d", &mask); err != nil || mask < 0 || mask > 32 || fmt.Sprint(mask) != bitsStr {
			return address{}, fmt.Errorf("%q is not an IPv4 CIDR block", s)
		}
	}
	b := a.As4()
	return address{addr: int64(b[0])<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3]), mask: mask}, nil
}

func mustAddress(s string) address {
	a, err := parseAddress(s)
	if err != nil {
		panic(err)
	}
	return a
}

func dotted(n int64) string {
	return fmt.Sprintf("%d.%d.%d.%d", n>>24&0xff, n>>16&0xff, n>>8&0xff, n&0xff)
}

func (a address) size() int64  { return int64(1) << (32 - a.mask) }
func (a address) start() int64 { return a.addr &^ (a.size() - 1) }
func (a address) end() int64   { return a.start() + a.size() - 1 }
func (a address) String() string {
	return fmt.Sprintf("%s/%d", dotted(a.addr), a.mask)
}

// cidrSubnetV4 is subnetDistributorLegacy.ts's cidrSubnetV4: the netNum-th block of newBits more
// bits, counted from the range's address as written.
func cidrSubnetV4(ipRange string, newBits, netNum int) (string, error) {
	ip, err := parseAddress(ipRange)
	if err != nil {
		return "", err
	}
	newMask := ip.mask + newBits
	if newMask > 32 {
		return "", fmt.Errorf("Requested %d new bits, but only %d are available.", newBits, 32-ip.mask)
	}
	if newMask < 0 {
		return "", fmt.Errorf("%s: a /%d block is wider than the address space", ipRange, newMask)
	}
	n := ip.addr + (int64(1)<<(32-newMask))*int64(netNum)
	if n < 0 || n > 0xffffffff {
		return "", fmt.Errorf("%s: block %d of /%d is outside the IPv4 address space", ipRange, netNum, newMask)
	}
	return fmt.Sprintf("%s/%d", dotted(n), newMask), nil
}

// isOverlapping is subnetDistributorLegacy.ts's isOverlapping (the masked ranges intersect).
func isOverlapping(a, b address) bool {
	return a.start() <= b.end() && b.start() <= a.end()
}

// nextBlock is subnetDistributorLegacy.ts's nextBlock: the first block of the new size after the
// previous one.
func nextBlock(previous address, mask int) address {
	last := address{addr: previous.end(), mask: mask}
	return address{addr: last.end() + 1, mask: mask}
}

// nextPow2 is subnetDistributorLegacy.ts's nextPow2.
func nextPow2(n int) int {
	if n == 0 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// subnetName is subnetNaming.ts's subnetName under the "Legacy" strategy:
// `${vpcName}-${spec.name ?? spec.type.toLowerCase()}-${azNum}`.
func subnetName(vpcName string, spec specInput, azNum int) string {
	specName := spec.name
	if specName == "" {
		specName = strings.ToLower(spec.typ)
	}
	return fmt.Sprintf("%s-%s-%d", vpcName, specName, azNum)
}

// legacySubnets is getSubnetSpecsLegacy (subnetDistributorLegacy.ts) without azCidrMask, which
// awsx passes as undefined for the "Legacy" strategy (vpc.ts, decideSubnetSpecs): per zone, the
// private subnets, then the public, then the isolated, concatenated zone after zone; specs nil is
// awsx's default layout (generateDefaultSubnets).
func legacySubnets(vpcName, vpcCIDR string, azNames []string, specs []specInput) ([]subnetSpec, error) {
	// "Split the VPC CIDR block evenly between the AZs."
	newBitsPerAZ := bits.Len(uint(nextPow2(len(azNames)))) - 1 // Math.log2(nextPow2(n))
	azBases := make([]string, len(azNames))
	for i := range azNames {
		b, err := cidrSubnetV4(vpcCIDR, newBitsPerAZ, i)
		if err != nil {
			return nil, err
		}
		azBases[i] = b
	}
	if specs == nil {
		return defaultSubnets(vpcName, azNames, azBases)
	}
	baseSubnetMask := mustAddress(azBases[0]).mask
	newBitsPerSubnet := 1 // "Special case where there's only 1 subnet"
	if len(specs) == 1 {
		newBitsPerSubnet = 0
	}
	var out []subnetSpec
	for i, az := range azNames {
		current := address{addr: mustAddress(azBases[i]).start() - 1, mask: 32}
		var byType [3][]subnetSpec // private, public, isolated
		for t, typ := range []string{"Private", "Public", "Isolated"} {
			// The base of a type's blocks: after the last subnet of the previous types in this
			// zone (public after private; isolated after public, else private), else the zone's.
			baseCIDR, split := azBases[i], azBases[i]
			for prev := t - 1; prev >= 0; prev-- {
				if n := len(byType[prev]); n > 0 {
					baseCIDR = byType[prev][n-1].cidrBlock
					s, err := cidrSubnetV4(baseCIDR, 0, 1)
					if err != nil {
						return nil, err
					}
					split = s
					break
				}
			}
			defaultMask := []int{19, 20, 24}[t]
			j := 0
			for k, spec := range specs {
				if spec.typ != typ {
					continue
				}
				mask := spec.cidrMask
				if mask == 0 {
					mask = max(baseSubnetMask+newBitsPerSubnet, defaultMask)
				}
				// Private blocks are counted from the zone's base with the zone's mask; public and
				// isolated ones from the split base with the previous subnet's mask.
				newBits := mask - mustAddress(baseCIDR).mask
				from := split
				if t == 0 {
					newBits, from = mask-baseSubnetMask, azBases[i]
				}
				c, err := cidrSubnetV4(from, newBits, j)
				if err != nil {
					return nil, err
				}
				next := mustAddress(c)
				if isOverlapping(current, next) {
					next = nextBlock(current, mask)
				}
				name := subnetName(vpcName, spec, i+1)
				byType[t] = append(byType[t], subnetSpec{azName: az, cidrBlock: next.String(), typ: typ, resourceName: name, nameTag: name, spec: k})
				current = next
				j++
			}
		}
		out = slices.Concat(out, byType[0], byType[1], byType[2])
	}
	return out, nil
}

// defaultSubnets is generateDefaultSubnets: per zone a private subnet, the first half of the zone's
// block, then per zone a public one, the first half of the rest.
func defaultSubnets(vpcName string, azNames, azBases []string) ([]subnetSpec, error) {
	private, public := make([]subnetSpec, len(azNames)), make([]subnetSpec, len(azNames))
	for i, az := range azNames {
		c, err := cidrSubnetV4(azBases[i], 1, 0)
		if err != nil {
			return nil, err
		}
		name := subnetName(vpcName, specInput{typ: "Private"}, i+1)
		private[i] = subnetSpec{azName: az, cidrBlock: c, typ: "Private", resourceName: name, nameTag: name, spec: -1}
	}
	for i, az := range azNames {
		split, err := cidrSubnetV4(private[i].cidrBlock, 0, 1)
		if err != nil {
			return nil, err
		}
		c, err := cidrSubnetV4(split, 1, 0)
		if err != nil {
			return nil, err
		}
		name := subnetName(vpcName, specInput{typ: "Public"}, i+1)
		public[i] = subnetSpec{azName: az, cidrBlock: c, typ: "Public", resourceName: name, nameTag: name, spec: -1}
	}
	return append(private, public...), nil
}

// validateSubnets is vpc.ts's validateSubnets with getOverlappingSubnets: every subnet whose range
// contains, or is contained in, another's.
func validateSubnets(specs []subnetSpec) error {
	inSubnet := func(a, b address) bool { // ip-address isInSubnet: a within b
		return a.mask >= b.mask && a.addr&^(b.size()-1) == b.addr&^(b.size()-1)
	}
	var overlapping []subnetSpec
	for i, x := range specs {
		for j, y := range specs {
			a, b := mustAddress(x.cidrBlock), mustAddress(y.cidrBlock)
			if i != j && (inSubnet(a, b) || inSubnet(b, a)) {
				overlapping = append(overlapping, x)
				break
			}
		}
	}
	if len(overlapping) == 0 {
		return nil
	}
	msg := "The following subnets overlap with at least one other subnet. Make the CIDR for the VPC larger, reduce the size of the subnets per AZ, or use less Availability Zones:\n\n"
	for i, s := range overlapping {
		msg += fmt.Sprintf("%d. %s: %s\n", i+1, s.resourceName, s.cidrBlock)
	}
	return fmt.Errorf("%s", msg)
}

// validateNatGatewayStrategy is vpc.ts's: "OnePerAz" and "Single" need a public subnet and one of
// rel.natInnerTypes (3.x: a private or isolated one; 2.22.0: a private one), refused in its words
// (nat is the strategy in lower case).
func validateNatGatewayStrategy(nat string, specs []subnetSpec) error {
	if nat == "none" {
		return nil
	}
	hasPublic := slices.ContainsFunc(specs, func(s subnetSpec) bool { return s.typ == "Public" })
	hasInner := slices.ContainsFunc(specs, func(s subnetSpec) bool { return slices.Contains(rel.natInnerTypes, s.typ) })
	if hasPublic && hasInner {
		return nil
	}
	return fmt.Errorf("%s", rel.natRefusal)
}

// shouldCreateNatGateway is vpc.ts's.
func shouldCreateNatGateway(nat string, numGateways, azIndex int) bool {
	switch nat {
	case "single":
		return numGateways < 1
	case "oneperaz":
		return numGateways < azIndex+1
	}
	return false
}

// typeRank orders a zone's subnets as vpc.ts's compareSubnetSpecs sorts them (a stable sort):
// public, then private, then isolated.
func typeRank(t string) int {
	return map[string]int{"Public": 0, "Private": 1, "Isolated": 2}[t]
}

// zoneOrder is the order in which vpc.ts registers the subnets: zone by zone (availabilityZones'
// order), each zone's subnets sorted public, private, isolated.
func zoneOrder(azNames []string, specs []subnetSpec) [][]subnetSpec {
	out := make([][]subnetSpec, len(azNames))
	for i, az := range azNames {
		for _, s := range specs {
			if s.azName == az {
				out[i] = append(out[i], s)
			}
		}
		slices.SortStableFunc(out[i], func(a, b subnetSpec) int { return typeRank(a.typ) - typeRank(b.typ) })
	}
	return out
}

// layoutEntry is one element of the subnetLayout output (awsx:ec2:ResolvedSubnetSpec) as awsx
// derives it from the legacy layout.
type layoutEntry struct {
	typ      string
	cidrMask int
}

// subnetLayout is extractSubnetSpecInputFromLegacyLayout (vpc.ts) then toResolvedSubnetSpecOutputs
// (vpcConverters.ts): the first zone's subnets with the "Unused" gaps between them (findSubnetGap),
// each as {cidrMask, type}. (extractName returns a spec's name under the key subnetName, which
// toResolvedSubnetSpecOutputs does not read: the layout never has names.)
func subnetLayout(specs []subnetSpec, azCount int) []layoutEntry {
	if azCount == 0 || len(specs) == 0 {
		return []layoutEntry{}
	}
	out := []layoutEntry{}
	var previous *netmask
	for _, s := range specs[:len(specs)/azCount] {
		n := newNetmask(mustAddress(s.cidrBlock))
		if previous != nil {
			for _, gap := range findSubnetGap(*previous, n) {
				out = append(out, layoutEntry{typ: "Unused", cidrMask: gap.bitmask})
			}
		}
		out = append(out, layoutEntry{typ: s.typ, cidrMask: n.bitmask})
		previous = &n
	}
	return out
}

// netmask is the netmask library's Netmask (base masked; first and last are the usable hosts).
type netmask struct {
	base    int64
	bitmask int
}

func newNetmask(a address) netmask {
	return netmask{base: a.start(), bitmask: a.mask}
}

func (n netmask) size() int64 { return int64(1) << (32 - n.bitmask) }
func (n netmask) first() int64 {
	if n.bitmask <= 30 {
		return n.base + 1
	}
	return n.base
}
func (n netmask) last() int64 {
	if n.bitmask <= 30 {
		return n.base + n.size() - 2
	}
	return n.base + n.size() - 1
}
func (n netmask) next() netmask { return netmask{base: n.base + n.size(), bitmask: n.bitmask} }
func (n netmask) contains(ip int64) bool {
	return ip&^(n.size()-1) == n.base
}

// findSubnetGap is vpc.ts's: the widest blocks that fill the space between two subnets.
func findSubnetGap(a, b netmask) []netmask {
	start, end := b, a
	if a.base < b.base {
		start, end = a, b
	}
	var gaps []netmask
	previous := a
	next := start.next()
	for next.base < end.base {
		for next.bitmask > 0 {
			wider := netmask{base: next.base &^ (int64(1)<<(33-next.bitmask) - 1), bitmask: next.bitmask - 1}
			if wider.contains(previous.last()) || wider.contains(end.first()) {
				break
			}
			next = wider
		}
		gaps = append(gaps, next)
		previous = next
		next = next.next()
	}
	return gaps
}
