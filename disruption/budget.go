package disruption

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/scheduling"
)

// DefaultBudgetNodes is the budget of a NodePool that lists none (Karpenter's default).
const DefaultBudgetNodes = "10%"

// budgetReasons are the reasons a budget can name; Expired is forceful and never budgeted.
var budgetReasons = []string{scheduling.ReasonEmpty, scheduling.ReasonUnderutilized, scheduling.ReasonDrifted}

// poolBudget tracks how many more of a NodePool's nodes may be disrupted in this decision.
type poolBudget struct {
	name string
	// nodes counts the NodePool's initialized nodes, the base of percentages.
	nodes int
	// limit per reason: the minimum over the active budgets that apply; -1 when none applies.
	limit map[string]int
	// from describes the budget that set each limit.
	from map[string]string
	// busy counts nodes already being disrupted or NotReady, and nodes taken by earlier
	// commands of this decision.
	busy int
	// said is the last blockedReason, for the many nodes a budget keeps in one decision.
	said struct {
		reason, text string
		busy         int
	}
}

// newPoolBudget evaluates np's budgets at now for a NodePool of nodes initialized nodes.
func newPoolBudget(np *scheduling.NodePool, nodes int, now time.Time) (*poolBudget, error) {
	b := &poolBudget{name: np.Name, nodes: nodes, limit: map[string]int{}, from: map[string]string{}}
	budgets := np.Disruption.Budgets
	if len(budgets) == 0 {
		budgets = []scheduling.Budget{{Nodes: DefaultBudgetNodes}}
	}
	for _, r := range budgetReasons {
		b.limit[r] = -1
	}
	for i, budget := range budgets {
		n, err := budgetNodes(budget.Nodes, nodes)
		if err != nil {
			return nil, fmt.Errorf("nodepool %q: budgets[%d]: %w", np.Name, i, err)
		}
		for _, r := range budget.Reasons {
			if !validReason(r) {
				return nil, fmt.Errorf("nodepool %q: budgets[%d]: unknown reason %q (use Empty, Underutilized or Drifted)", np.Name, i, r)
			}
		}
		active, window, err := budgetActive(budget, now)
		if err != nil {
			return nil, fmt.Errorf("nodepool %q: budgets[%d]: %w", np.Name, i, err)
		}
		if !active {
			continue
		}
		for _, r := range budgetReasons {
			if len(budget.Reasons) > 0 && !contains(budget.Reasons, r) {
				continue
			}
			if b.limit[r] < 0 || n < b.limit[r] {
				b.limit[r] = n
				nodesText := budget.Nodes
				if nodesText == "" {
					nodesText = DefaultBudgetNodes
				}
				b.from[r] = fmt.Sprintf("budget nodes: %q%s", nodesText, window)
			}
		}
	}
	return b, nil
}

func validReason(r string) bool { return contains(budgetReasons, r) }

// budgetNodes reads a budget's nodes, a count or a percentage of total rounded up.
func budgetNodes(text string, total int) (int, error) {
	if text == "" {
		text = DefaultBudgetNodes
	}
	if pct, ok := strings.CutSuffix(text, "%"); ok {
		p, err := strconv.Atoi(pct)
		if err != nil || p < 0 || p > 100 {
			return 0, fmt.Errorf("nodes %q is not a percentage from 0%% to 100%%", text)
		}
		return int(math.Ceil(float64(p) * float64(total) / 100)), nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("nodes %q is neither a node count nor a percentage", text)
	}
	return n, nil
}

// budgetActive reports whether a budget is in force at now, and describes its window.
func budgetActive(b scheduling.Budget, now time.Time) (bool, string, error) {
	if b.Schedule == "" && b.Duration == nil {
		return true, "", nil
	}
	if b.Schedule == "" || b.Duration == nil {
		return false, "", fmt.Errorf("schedule and duration must be set together")
	}
	s, err := parseCron(b.Schedule)
	if err != nil {
		return false, "", err
	}
	active := s.activeAt(now, *b.Duration)
	return active, fmt.Sprintf(" in its window (schedule %q, duration %s, UTC)", b.Schedule, *b.Duration), nil
}

// remaining is how many more nodes may be disrupted for reason; math.MaxInt when no budget
// applies to it.
func (b *poolBudget) remaining(reason string) int {
	limit, ok := b.limit[reason]
	if !ok || limit < 0 {
		return math.MaxInt
	}
	return max(0, limit-b.busy)
}

// blockedReason says why the budget allows no more disruptions for reason.
func (b *poolBudget) blockedReason(reason string) string {
	if b.said.text != "" && b.said.reason == reason && b.said.busy == b.busy {
		return b.said.text
	}
	b.said.reason, b.said.busy = reason, b.busy
	b.said.text = fmt.Sprintf("NodePool %s's disruption budget allows no more %s disruptions now (%s allows %d of its %d nodes; %d already disrupting, NotReady or taken by earlier commands)",
		b.name, reason, b.from[reason], b.limit[reason], b.nodes, b.busy)
	return b.said.text
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
