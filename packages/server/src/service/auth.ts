import { As2Error } from "@as2kit/core";
import type { AccountRecord, As2Store, MemberRole, TenantRecord, UserRecord } from "@as2kit/core/store";
import { firstFree, slugFromName } from "./as2-identifier.ts";
import { generateTenantIdentity } from "./certificates/identity.ts";
import type { ServiceDeps } from "./deps.ts";
import { recordEvent } from "./events.ts";
import type { Principal } from "./principal.ts";
import { hashPassword, verifyPassword } from "./secrets/passwords.ts";
import { generateToken, hashToken } from "./secrets/tokens.ts";
import { insertTenant } from "./tenants.ts";
import { addSeconds } from "./time.ts";
import { fieldError, isConflictOn } from "./validation-error.ts";
import { accountView } from "./views/account-views.ts";

export const SESSION_TOKEN_PREFIX = "sess_";

export interface RegisterInput {
	name: string;
	email: string;
	password: string;
	registrationCode?: string | undefined;
}

export interface Registration {
	user: UserRecord;
	account: AccountRecord;
	tenant: TenantRecord;
	token: string;
}

/** A tenant as listed for a user, with the user's role in its account. */
export interface MemberTenant {
	tenant: TenantRecord;
	account: AccountRecord;
	role: MemberRole;
}

export function createAuthService(deps: ServiceDeps) {
	const { store, config, now, tokenKey, sealKey } = deps;
	// Unknown emails still pay for one hash, so response times do not reveal which exist.
	const decoyHash = hashPassword("decoy password", config.passwordCostLog2);

	async function openSession(tx: As2Store, userId: string, accountId: string, at: Date): Promise<string> {
		const token = generateToken(SESSION_TOKEN_PREFIX);
		await tx.sessions.create({
			id: await tx.ids.next("ses_"),
			userId,
			accountId,
			tokenHash: hashToken(tokenKey, token),
			createdAt: at,
			expiresAt: addSeconds(at, config.sessionTtlSeconds),
			lastUsedAt: null,
			revokedAt: null,
		});
		return token;
	}

	/**
	 * The registration's own checks, on the fields that passed the HTTP layer's schema (`failed`
	 * names the others), reported with the schema's (issue #16, defect 9). Without the
	 * registration code, nothing is said about the email: who may not register learns nothing
	 * of who has.
	 */
	async function checkRegistration(
		input: { email?: string | undefined; registrationCode?: string | undefined },
		failed: ReadonlySet<string>,
	): Promise<void> {
		if (config.registrationCode !== null && input.registrationCode !== config.registrationCode) {
			if (failed.has("registration_code")) return;
			throw fieldError("registration_code", "is invalid");
		}
		if (input.email === undefined || failed.has("email")) return;
		if (await store.users.findByEmail(input.email.trim().toLowerCase())) throw emailTaken();
	}

	return {
		checkRegistration,

		/** `POST /auth/register`: a user, an account on the default plan, its first tenant, a session. */
		async register(input: RegisterInput): Promise<Registration> {
			await checkRegistration(input, new Set());
			const email = input.email.trim().toLowerCase();
			const [passwordHash, identity] = await Promise.all([
				hashPassword(input.password, config.passwordCostLog2),
				generateTenantIdentity(input.name, now(), deps.identityKeyPair),
			]);
			try {
				return await store.transaction(async (tx) => {
					const at = now();
					const user: UserRecord = {
						id: await tx.ids.next("usr_"),
						name: input.name,
						email,
						passwordHash,
						createdAt: at,
						updatedAt: at,
					};
					await tx.users.create(user);
					const account: AccountRecord = {
						id: await tx.ids.next("acc_"),
						name: input.name,
						slug: await firstFree(slugFromName(input.name), "-", async (c) => !!(await tx.accounts.findBySlug(c))),
						plan: config.defaultPlan,
						status: "active",
						createdAt: at,
						updatedAt: at,
					};
					await tx.accounts.create(account);
					await tx.memberships.create({ accountId: account.id, userId: user.id, role: "owner", createdAt: at });
					const { updated_at: _, ...created } = accountView(account);
					await recordEvent(
						tx,
						{ kind: "account.created", accountId: account.id, tenantId: null, environment: "live", data: created },
						at,
					);
					const tenant = await insertTenant(
						tx,
						{ name: input.name, accountId: account.id, environment: "live", identity, sealKey },
						at,
					);
					const token = await openSession(tx, user.id, account.id, at);
					return { user, account, tenant, token };
				});
			} catch (error) {
				if (isConflictOn(error, "users.email")) throw emailTaken();
				throw error;
			}
		},

		/** `POST /auth/login`: a new session in the user's first account. */
		async login(emailInput: string, password: string): Promise<{ user: UserRecord; token: string }> {
			const user = await store.users.findByEmail(emailInput.trim().toLowerCase());
			const valid = await verifyPassword(password, user?.passwordHash ?? (await decoyHash));
			if (!user || !valid) throw new As2Error("invalid_credentials", "wrong email or password");
			const [membership] = await store.memberships.listForUser(user.id);
			if (!membership) throw new As2Error("invalid_credentials", "this user belongs to no account");
			const token = await store.transaction((tx) => openSession(tx, user.id, membership.accountId, now()));
			return { user, token };
		},

		/** `POST /auth/logout`: revokes the session token the request carried. */
		async logout(principal: Principal): Promise<void> {
			if (principal.kind !== "session") {
				throw fieldError(
					"authorization",
					"logout ends a session token; revoke API keys with DELETE /v1/api-keys/{key_id}",
				);
			}
			await store.sessions.revoke(principal.credentialId, now());
		},

		/** `GET /auth/me`: the user and the tenants this credential reaches, with the user's role. */
		async me(principal: Principal): Promise<{ user: UserRecord | null; tenants: MemberTenant[] }> {
			const user = principal.userId ? await store.users.get(principal.userId) : null;
			const memberships = user ? await store.memberships.listForUser(user.id) : [];
			const accountIds = principal.kind === "session" ? memberships.map((m) => m.accountId) : [principal.accountId];
			const tenants: MemberTenant[] = [];
			for (const accountId of accountIds) {
				const account = await store.accounts.get(accountId);
				if (!account) continue;
				const role = memberships.find((m) => m.accountId === accountId)?.role ?? "member";
				const filter =
					principal.kind === "session"
						? {}
						: { ids: principal.scope === "tenant" ? [principal.tenantId] : (principal.allowedTenantIds ?? undefined) };
				const page = await store.tenants.list(accountId, { page: 1, perPage: 1000 }, filter);
				for (const tenant of page.items) tenants.push({ tenant, account, role });
			}
			return { user, tenants };
		},
	};
}

const emailTaken = () => fieldError("email", "has already been taken");
