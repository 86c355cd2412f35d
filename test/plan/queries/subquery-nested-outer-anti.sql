CREATE TABLE lineitem (l_order INT, l_supp INT, l_late BOOLEAN) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT l1.l_order FROM lineitem AS l1 WHERE l1.l_late AND EXISTS (SELECT * FROM lineitem AS l2 WHERE l2.l_order = l1.l_order AND l2.l_supp <> l1.l_supp AND NOT EXISTS (SELECT * FROM lineitem AS l3 WHERE l3.l_order = l1.l_order AND l3.l_supp <> l1.l_supp AND l3.l_late));
