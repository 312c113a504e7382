ALTER TABLE `webhook_endpoints` ADD `account_events` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Hand-written, after the generated statement (README, Webhooks: upgrading). An existing
-- endpoint keeps receiving the account-level events it subscribed to only where it can have
-- been created by a credential reaching the whole account: it is in the account's first
-- tenant, its events cover an account-level kind, and the account never had a credential of
-- lesser reach (a tenant key or a key restricted to some tenants, revoked ones included, or a
-- member). Every other endpoint stops receiving them until an owner, an admin or an
-- unrestricted account key sets its events again.
UPDATE `webhook_endpoints` SET `account_events` = 1
WHERE `tenant_id` = (
		SELECT `id` FROM `tenants` WHERE `tenants`.`account_id` = `webhook_endpoints`.`account_id`
		ORDER BY `created_at`, `id` LIMIT 1
	)
	AND EXISTS (
		SELECT 1 FROM json_each(`webhook_endpoints`.`events`)
		WHERE `value` = '*' OR `value` LIKE 'account.%' OR `value` LIKE 'tenant.%' OR `value` LIKE 'billing.%'
	)
	AND NOT EXISTS (
		SELECT 1 FROM `api_keys` WHERE `api_keys`.`account_id` = `webhook_endpoints`.`account_id`
			AND (`scope` <> 'account' OR (`allowed_tenant_ids` IS NOT NULL AND `allowed_tenant_ids` <> 'null'))
	)
	AND NOT EXISTS (
		SELECT 1 FROM `memberships` WHERE `memberships`.`account_id` = `webhook_endpoints`.`account_id`
			AND `role` NOT IN ('owner', 'admin')
	);
