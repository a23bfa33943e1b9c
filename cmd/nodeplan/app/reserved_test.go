package app

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// reservedPool may launch m5.large reserved or on-demand.
const reservedPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [reserved, on-demand]}`

// webReplicas is a Deployment of n pods that need a node each on an m5.large.
func webReplicas(n int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 1200m, memory: 1Gi}}}]`, n)
}

// An EC2NodeClass's capacity reservation gives its instance type a reserved offering in the
// reservation's zone: a NodePool that asks for reserved capacity fills the instances the
// reservation still takes, at next to nothing, before paying on-demand prices.
func TestCapacityReservation(t *testing.T) {
	class := ec2NodeClass() + `
  capacityReservations:
  - {id: cr-0a1b2c3d4e5f, instanceType: m5.large, availabilityZone: us-west-2b, instanceMatchCriteria: targeted,
     ownerID: "123456789012", reservationType: default, state: active, availableInstanceCount: 2}`
	web := webReplicas(3)
	res := planYAML(t, reservedPool, class, web)
	require.Empty(t, res.Plan.Unschedulable)
	var reserved, onDemand int
	for _, nc := range res.Plan.NodeClaims {
		switch nc.CapacityType {
		case "reserved":
			reserved++
			require.Equal(t, "us-west-2b", nc.Zone)
			require.Equal(t, "cr-0a1b2c3d4e5f", nc.Labels["karpenter.k8s.aws/capacity-reservation-id"])
			require.Less(t, nc.Price, 0.0001, "a reservation is paid for already")
		case "on-demand":
			onDemand++
		}
	}
	require.Equal(t, 2, reserved, "the reservation takes two more instances")
	require.Equal(t, 1, onDemand)

	// Without availableInstanceCount the snapshot does not say what is free: nothing is planned
	// on the reservation, and a warning says so.
	res = planYAML(t, reservedPool, ec2NodeClass()+`
  capacityReservations:
  - {id: cr-0a1b2c3d4e5f, instanceType: m5.large, availabilityZone: us-west-2b, instanceMatchCriteria: targeted, ownerID: "123456789012"}`, web)
	for _, nc := range res.Plan.NodeClaims {
		require.NotEqual(t, "reserved", nc.CapacityType)
	}
	require.Contains(t, res.Bundle.Warnings[len(res.Bundle.Warnings)-1], "availableInstanceCount")
	require.Contains(t, res.Bundle.Warnings[len(res.Bundle.Warnings)-1], "aws ec2 describe-capacity-reservations --capacity-reservation-ids cr-0a1b2c3d4e5f")
}

// The output of aws ec2 describe-capacity-reservations, given as it is beside a snapshot whose
// class lists the reservation without a count, gives EC2's count; a reservation EC2 no longer
// has active is not planned on.
func TestCapacityReservationsFromAWSCLI(t *testing.T) {
	class := ec2NodeClass() + `
  capacityReservations:
  - {id: cr-0a1b2c3d4e5f, instanceType: m5.large, availabilityZone: us-west-2b, instanceMatchCriteria: targeted, ownerID: "123456789012", reservationType: default, state: active}`
	web := webReplicas(4)
	describe := func(state string) string {
		return `{
    "CapacityReservations": [
        {
            "CapacityReservationId": "cr-0a1b2c3d4e5f",
            "OwnerId": "123456789012",
            "CapacityReservationArn": "arn:aws:ec2:us-west-2:123456789012:capacity-reservation/cr-0a1b2c3d4e5f",
            "AvailabilityZoneId": "usw2-az2",
            "InstanceType": "m5.large",
            "InstancePlatform": "Linux/UNIX",
            "AvailabilityZone": "us-west-2b",
            "Tenancy": "default",
            "TotalInstanceCount": 5,
            "AvailableInstanceCount": 3,
            "EbsOptimized": true,
            "EphemeralStorage": false,
            "State": "` + state + `",
            "StartDate": "2026-01-01T00:00:00+00:00",
            "EndDate": "2026-12-31T23:59:59.000Z",
            "EndDateType": "limited",
            "InstanceMatchCriteria": "targeted",
            "CreateDate": "2026-01-01T00:00:00+00:00",
            "Tags": [],
            "CapacityAllocations": [],
            "ReservationType": "default"
        }
    ]
}`
	}
	reserved := func(res *Planned) int {
		n := 0
		for _, nc := range res.Plan.NodeClaims {
			if nc.CapacityType == "reserved" {
				n++
			}
		}
		return n
	}
	res := planYAML(t, reservedPool, class, web, describe("active"))
	require.Empty(t, res.Plan.Unschedulable)
	require.Equal(t, 3, reserved(res), "EC2 says three more instances fit the reservation")
	require.Empty(t, res.Bundle.Warnings)

	// A reservation no class lists is not used, and a warning says why.
	res = planYAML(t, reservedPool, ec2NodeClass(), web, describe("active"))
	require.Zero(t, reserved(res))
	require.Len(t, res.Bundle.Warnings, 1)
	require.Contains(t, res.Bundle.Warnings[0], "no EC2NodeClass's status.capacityReservations lists cr-0a1b2c3d4e5f")

	res = planYAML(t, reservedPool, class, web, describe("expired"))
	require.Zero(t, reserved(res))
	require.Len(t, res.Bundle.Warnings, 1)
	require.Contains(t, res.Bundle.Warnings[0], "capacity reservation cr-0a1b2c3d4e5f is expired, not active")
}
