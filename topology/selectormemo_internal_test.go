package topology

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The memo converts every selector as metav1.LabelSelectorAsSelector does, whether it has
// met an equal one before or one its key could be confused with.
func TestSelectorMemoConvertsAsLabelSelectorAsSelector(t *testing.T) {
	in := func(key string, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
	}
	selectors := []*metav1.LabelSelector{
		nil,
		{},
		{MatchLabels: map[string]string{"app": "web"}},
		{MatchLabels: map[string]string{"app": "web", "tier": "db"}},
		{MatchLabels: map[string]string{"app": "web:4:tier2:db"}}, // invalid value
		{MatchExpressions: []metav1.LabelSelectorRequirement{in("app", "a", "b")}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{in("app", "ab")}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{in("app", "a"), in("b")}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}, // invalid operator
		{MatchLabels: map[string]string{"app": "web"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}},
	}
	memo := selectorMemo{}
	for round := range 2 { // the second round finds the valid ones in the memo
		for i, sel := range selectors {
			want, wantErr := metav1.LabelSelectorAsSelector(sel)
			got, err := memo.convert(sel)
			require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), "round %d selector %d", round, i)
			if wantErr == nil {
				require.Equal(t, want.String(), got.String(), "round %d selector %d", round, i)
			}
		}
	}
}
