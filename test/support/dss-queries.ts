/**
 * weir's own decision-support queries over the schema of dss-generator.ts: analytic reports in the
 * spirit of a warehouse's (revenue by region, customers above their average, suppliers nobody
 * buys from...), written for this project. Each is valid in weir's Flink SQL and in PostgreSQL,
 * every output column named (so a view's columns and PostgreSQL's agree), and free of division (AVG
 * only compared, never output: exact decimals on both sides, no rounding to tell apart).
 */

/** View name → query. */
export const DSS_QUERIES: Readonly<Record<string, string>> = {
  // Revenue per region and year through nation, net of discounts (NULL discount counts as none).
  revenue_by_region_year: `SELECT n.region AS region, EXTRACT(YEAR FROM o.order_date) AS yr,
      SUM(l.qty * l.price * (1 - COALESCE(l.discount, 0))) AS revenue, COUNT(*) AS lines
    FROM lineitem l JOIN orders o ON l.o_id = o.o_id JOIN customer c ON o.c_id = c.c_id JOIN nation n ON c.n_id = n.n_id
    GROUP BY n.region, EXTRACT(YEAR FROM o.order_date)`,
  // Every customer with its number of orders, zero included.
  orders_per_customer: `SELECT c.c_id AS c_id, c.name AS name, COUNT(o.o_id) AS orders, SUM(o.total) AS spent
    FROM customer c LEFT JOIN orders o ON o.c_id = c.c_id GROUP BY c.c_id, c.name`,
  // How many customers have 0, 1, 2, ... orders.
  order_count_distribution: `SELECT cnt AS orders, COUNT(*) AS customers FROM (
      SELECT c.c_id AS c_id, COUNT(o.o_id) AS cnt FROM customer c LEFT JOIN orders o ON o.c_id = c.c_id GROUP BY c.c_id) t
    GROUP BY cnt`,
  // Orders above their customer's average total (written without division: total * n > sum).
  orders_above_customer_average: `SELECT o.o_id AS o_id, o.c_id AS c_id, o.total AS total FROM orders o
    WHERE o.total * (SELECT COUNT(*) FROM orders o2 WHERE o2.c_id = o.c_id) > (SELECT SUM(o2.total) FROM orders o2 WHERE o2.c_id = o.c_id)`,
  // Each order beside its customer's largest order (scalar subquery in SELECT).
  order_vs_customer_max: `SELECT o.o_id AS o_id, o.total AS total,
      (SELECT MAX(o2.total) FROM orders o2 WHERE o2.c_id = o.c_id) AS customer_max FROM orders o`,
  // Customers whose spending is above the nation's largest supplier balance (scalar subquery in HAVING).
  big_spenders_vs_suppliers: `SELECT c.n_id AS n_id, c.c_id AS c_id, SUM(o.total) AS spent FROM customer c JOIN orders o ON o.c_id = c.c_id
    GROUP BY c.n_id, c.c_id
    HAVING SUM(o.total) > (SELECT MAX(s.balance) FROM supplier s WHERE s.n_id = c.n_id)`,
  // Customers with at least one returned line (EXISTS through two levels of join in the subquery).
  customers_with_returns: `SELECT c.c_id AS c_id, c.segment AS segment FROM customer c
    WHERE EXISTS (SELECT 1 FROM orders o JOIN lineitem l ON l.o_id = o.o_id WHERE o.c_id = c.c_id AND l.returned)`,
  // Customers who never ordered.
  customers_without_orders: `SELECT c.c_id AS c_id, c.name AS name FROM customer c
    WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.c_id = c.c_id)`,
  // Suppliers on no big returned line: NOT IN over a column with NULLs (while one is there, nothing qualifies).
  suppliers_not_in_lines: `SELECT s.s_id AS s_id FROM supplier s WHERE s.s_id NOT IN (SELECT l.s_id FROM lineitem l WHERE l.qty > 49 AND l.returned)`,
  // Suppliers on no big returned line, NULLs left out of the subquery.
  idle_suppliers: `SELECT s.s_id AS s_id, s.name AS name FROM supplier s
    WHERE s.s_id NOT IN (SELECT l.s_id FROM lineitem l WHERE l.s_id IS NOT NULL AND l.returned AND l.qty > 46)`,
  // Orders of customers in the northern region (IN over a join).
  northern_orders: `SELECT o.o_id AS o_id, o.status AS status FROM orders o
    WHERE o.c_id IN (SELECT c.c_id FROM customer c JOIN nation n ON c.n_id = n.n_id WHERE n.region = 'NORTH')`,
  // Lines priced near or above the dearest returned line (uncorrelated scalar subquery compared in WHERE).
  lines_above_max_discounted: `SELECT l.o_id AS o_id, l.line AS line, l.price AS price FROM lineitem l
    WHERE l.price > (SELECT MAX(l2.price) FROM lineitem l2 WHERE l2.returned) - 20`,
  // Busy customers per segment: more than 5 orders.
  busy_customers: `SELECT c.segment AS segment, c.c_id AS c_id, COUNT(*) AS orders FROM customer c JOIN orders o ON o.c_id = c.c_id
    GROUP BY c.segment, c.c_id HAVING COUNT(*) > 5`,
  // Nations that both buy and sell (INTERSECT), sell only (EXCEPT), either (UNION).
  nations_buying_and_selling: `SELECT c.n_id AS n_id FROM customer c JOIN orders o ON o.c_id = c.c_id WHERE o.total > 1500
    INTERSECT SELECT s.n_id AS n_id FROM supplier s WHERE s.balance > 4000`,
  nations_selling_only: `SELECT s.n_id AS n_id FROM supplier s JOIN lineitem l ON l.s_id = s.s_id WHERE l.returned
    EXCEPT SELECT c.n_id AS n_id FROM customer c WHERE c.segment = 'PUBLIC' AND c.balance > 3000`,
  parties_by_nation: `SELECT n_id, name FROM customer WHERE balance < 0 UNION SELECT n_id, name FROM supplier WHERE balance < 0`,
  // Customer nation vs supplier nation of each line: domestic and foreign revenue (multi-way join through nation twice).
  domestic_vs_foreign: `SELECT cn.region AS buyer_region, sn.region AS seller_region,
      SUM(CASE WHEN cn.n_id = sn.n_id THEN l.qty * l.price ELSE 0 END) AS domestic,
      SUM(CASE WHEN cn.n_id <> sn.n_id THEN l.qty * l.price ELSE 0 END) AS foreign_trade
    FROM lineitem l JOIN orders o ON l.o_id = o.o_id JOIN customer c ON o.c_id = c.c_id JOIN nation cn ON c.n_id = cn.n_id
      JOIN supplier s ON l.s_id = s.s_id JOIN nation sn ON s.n_id = sn.n_id
    GROUP BY cn.region, sn.region`,
  // Distinct counts per nation.
  distinct_counts_by_nation: `SELECT n.name AS nation, COUNT(DISTINCT o.c_id) AS buyers, COUNT(DISTINCT l.s_id) AS suppliers, COUNT(DISTINCT o.status) AS statuses
    FROM nation n JOIN customer c ON c.n_id = n.n_id JOIN orders o ON o.c_id = c.c_id JOIN lineitem l ON l.o_id = o.o_id
    GROUP BY n.name`,
  // Status pivot per segment (CASE inside aggregates; NULL status and segment are groups/columns of their own).
  status_pivot: `SELECT c.segment AS segment,
      SUM(CASE WHEN o.status = 'OPEN' THEN 1 ELSE 0 END) AS open_orders,
      SUM(CASE WHEN o.status = 'SHIPPED' THEN 1 ELSE 0 END) AS shipped_orders,
      SUM(CASE WHEN o.status = 'CLOSED' THEN 1 ELSE 0 END) AS closed_orders,
      SUM(CASE WHEN o.status IS NULL THEN 1 ELSE 0 END) AS unknown_orders
    FROM orders o JOIN customer c ON o.c_id = c.c_id GROUP BY c.segment`,
  // Revenue rolled up by region and nation, with subtotals and a grand total.
  revenue_rollup: `SELECT n.region AS region, n.name AS nation, SUM(o.total) AS revenue, COUNT(*) AS orders, GROUPING(n.region, n.name) AS level
    FROM orders o JOIN customer c ON o.c_id = c.c_id JOIN nation n ON c.n_id = n.n_id
    GROUP BY ROLLUP(n.region, n.name)`,
  // Late shipments per supplier: lines shipped more than 30 days after the order, with returns counted.
  late_shipments: `SELECT l.s_id AS s_id, COUNT(*) AS late, SUM(CASE WHEN l.returned THEN 1 ELSE 0 END) AS late_returned
    FROM lineitem l JOIN orders o ON l.o_id = o.o_id
    WHERE l.ship_date > o.order_date + INTERVAL '30' DAY
    GROUP BY l.s_id`,
  // Customers with an order bigger than anything their nation's suppliers hold (ALL over a correlated subquery).
  orders_above_all_suppliers: `SELECT o.o_id AS o_id, o.c_id AS c_id FROM orders o JOIN customer c ON o.c_id = c.c_id
    WHERE o.total > ALL (SELECT s.balance FROM supplier s WHERE s.n_id = c.n_id AND s.balance IS NOT NULL)`,

  // Open orders per customer, zero included (a COUNT scalar subquery in SELECT: no row counts 0).
  open_orders_per_customer: `SELECT c.c_id AS c_id, (SELECT COUNT(*) FROM orders o WHERE o.c_id = c.c_id AND o.status = 'OPEN') AS open_orders FROM customer c`,
  // Customers of nations where no rich supplier lives (NOT IN over a nullable column, correlated by nothing).
  customers_of_poor_nations: `SELECT c.c_id AS c_id, c.n_id AS n_id FROM customer c WHERE c.n_id NOT IN (SELECT s.n_id FROM supplier s WHERE s.balance > 8000)`,
  // Customers by size of their largest order (EXISTS inside a CASE).
  customer_kind: `SELECT c.c_id AS c_id, CASE WHEN EXISTS (SELECT 1 FROM orders o WHERE o.c_id = c.c_id AND o.total > 1900) THEN 'BIG' ELSE 'SMALL' END AS kind FROM customer c`,
  // Whether a supplier's nation has a rich customer (IN in the SELECT list, three-valued).
  supplier_has_rich_neighbour: `SELECT s.s_id AS s_id, s.n_id IN (SELECT c.n_id FROM customer c WHERE c.balance > 4900) AS has_rich FROM supplier s`,
  // Customers and suppliers per nation side by side (FULL JOIN of two aggregates).
  parties_per_nation: `SELECT COALESCE(cc.n_id, ss.n_id) AS n_id, cc.customers AS customers, ss.suppliers AS suppliers
    FROM (SELECT n_id, COUNT(*) AS customers FROM customer WHERE segment = 'PUBLIC' GROUP BY n_id) cc
    FULL JOIN (SELECT n_id, COUNT(*) AS suppliers FROM supplier WHERE balance > 5000 GROUP BY n_id) ss ON cc.n_id = ss.n_id`,
  // Nations with their count of public customers, zero included (condition in the outer join's ON).
  public_customers_per_nation: `SELECT n.n_id AS n_id, COUNT(c.c_id) AS public_customers FROM nation n LEFT JOIN customer c ON c.n_id = n.n_id AND c.segment = 'PUBLIC' GROUP BY n.n_id`,
  // Each customer's two largest orders (ties share a rank).
  top_orders_per_customer: `SELECT c_id, o_id, total FROM (SELECT o.c_id AS c_id, o.o_id AS o_id, o.total AS total, RANK() OVER (PARTITION BY o.c_id ORDER BY o.total DESC) AS rk FROM orders o) t WHERE rk <= 2`,
  // Order counts by segment and status with every subtotal.
  segment_status_cube: `SELECT c.segment AS segment, o.status AS status, COUNT(*) AS orders, GROUPING(c.segment, o.status) AS level
    FROM orders o JOIN customer c ON o.c_id = c.c_id GROUP BY CUBE(c.segment, o.status)`,
  // Nations whose revenue is at least half the best nation's (aggregate compared with an aggregate of aggregates).
  leading_nations: `SELECT t.n_id AS n_id, t.revenue AS revenue FROM (SELECT c.n_id AS n_id, SUM(o.total) AS revenue FROM orders o JOIN customer c ON o.c_id = c.c_id GROUP BY c.n_id) t
    WHERE t.revenue * 2 >= (SELECT MAX(u.revenue) FROM (SELECT c2.n_id AS n_id, SUM(o2.total) AS revenue FROM orders o2 JOIN customer c2 ON o2.c_id = c2.c_id GROUP BY c2.n_id) u)`,
  // Returned lines per supplier with FILTER.
  supplier_returns: `SELECT l.s_id AS s_id, COUNT(*) FILTER (WHERE l.returned) AS returned_lines, COUNT(*) AS lines FROM lineitem l GROUP BY l.s_id`,
  // Segment and region pairs that occur (DISTINCT over a join).
  segment_regions: `SELECT DISTINCT c.segment AS segment, n.region AS region FROM customer c JOIN nation n ON c.n_id = n.n_id`,
  // Multiset set operations: statuses of northern orders not in southern, with multiplicity.
  status_except_all: `SELECT o.status AS status FROM orders o JOIN customer c ON o.c_id = c.c_id WHERE c.n_id <= 6
    EXCEPT ALL SELECT o.status AS status FROM orders o JOIN customer c ON o.c_id = c.c_id WHERE c.n_id > 10`,
  status_intersect_all: `SELECT o.status AS status FROM orders o JOIN customer c ON o.c_id = c.c_id WHERE c.n_id <= 3
    INTERSECT ALL SELECT o.status AS status FROM orders o JOIN customer c ON o.c_id = c.c_id WHERE c.n_id > 9`,
  // Each customer's spending as a running total over its orders, in order id order.
  customer_running_total: `SELECT o.o_id AS o_id, SUM(o.total) OVER (PARTITION BY o.c_id ORDER BY o.o_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running FROM orders o`,
  // Orders above their customer's average total, with AVG.
  orders_above_avg: `SELECT o.o_id AS o_id FROM orders o WHERE o.total > (SELECT AVG(o2.total) FROM orders o2 WHERE o2.c_id = o.c_id)`,
};
