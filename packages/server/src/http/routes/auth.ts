import { Hono } from "hono";
import * as v from "valibot";
import { memberTenantSchema, memberTenantView, userSchema, userView } from "../../service/views/account-views.ts";
import { body } from "../body.ts";
import type { AppEnv } from "../context.ts";
import type { AuthenticateOptions } from "../middleware/authenticate.ts";
import { authenticate } from "../middleware/authenticate.ts";
import { doc } from "../openapi.ts";
import { email, text } from "../schemas/strings.ts";

const registerSchema = v.pipe(
	v.object({
		name: text(1, 255),
		email,
		password: v.pipe(
			v.string(),
			v.minLength(8, "must have at least 8 characters"),
			v.maxLength(1024, "must have at most 1024 characters"),
		),
		password_confirmation: v.string(),
		registration_code: v.optional(v.string()),
	}),
	v.forward(
		v.partialCheck(
			[["password"], ["password_confirmation"]],
			(input) => input.password === input.password_confirmation,
			"does not match password",
		),
		["password_confirmation"],
	),
);

const loginSchema = v.object({
	email: v.pipe(v.string(), v.trim(), v.minLength(1, "is required")),
	password: v.pipe(v.string(), v.minLength(1, "is required")),
});

/** `/auth`: registration, login, the current user, logout (decisions.md, Accounts, users, sessions). */
export function authRoutes(options: Pick<AuthenticateOptions, "clientIp">) {
	const signedIn = authenticate({ ...options, rateLimit: false });
	/** Registration and login are limited per client address, on the Free plan's budget. */
	const perAddress = (): import("hono").MiddlewareHandler<AppEnv> => async (c, next) => {
		const admission = await c.get("service").admit(`auth:${options.clientIp(c)}`, "free");
		await admission.release();
		await next();
	};
	return new Hono<AppEnv>()
		.post(
			"/register",
			doc({
				tags: ["Auth"],
				summary: "Register a user, with an account and its first tenant",
				public: true,
				body: registerSchema,
				responses: {
					201: {
						description: "registered; `token` is a session token usable as a Bearer credential",
						schema: v.object({
							message: v.string(),
							user: userSchema,
							tenant: v.object({ id: v.string(), name: v.string(), pricing_tier: v.string() }),
							token: v.string(),
						}),
					},
				},
				errors: { 429: "too many attempts from this address" },
			}),
			perAddress(),
			body(registerSchema, {
				check: (c, input, failed) =>
					c
						.get("service")
						.auth.checkRegistration({ email: input.email, registrationCode: input.registration_code }, failed),
			}),
			async (c) => {
				const input = c.get("body");
				const { user, tenant, account, token } = await c.get("service").auth.register({
					name: input.name,
					email: input.email,
					password: input.password,
					registrationCode: input.registration_code,
				});
				return c.json(
					{
						message: "Registration successful",
						user: userView(user),
						tenant: { id: tenant.id, name: tenant.name, pricing_tier: account.plan },
						token,
					},
					201,
				);
			},
		)
		.post(
			"/login",
			doc({
				tags: ["Auth"],
				summary: "Log in: a new session token",
				public: true,
				body: loginSchema,
				responses: {
					200: {
						description: "logged in",
						schema: v.object({ message: v.string(), user: userSchema, token: v.string() }),
					},
				},
				errors: { 401: "wrong email or password (invalid_credentials)", 429: "too many attempts from this address" },
			}),
			perAddress(),
			body(loginSchema),
			async (c) => {
				const { user, token } = await c.get("service").auth.login(c.get("body").email, c.get("body").password);
				return c.json({ message: "Login successful", user: userView(user), token });
			},
		)
		.get(
			"/me",
			doc({
				tags: ["Auth"],
				access: { permission: null, reach: "tenant" },
				summary: "The current user and the tenants this credential reaches",
				responses: {
					200: {
						description: "the user (null for a key made without one) and tenants with the user's role",
						schema: v.object({ user: v.nullable(userSchema), tenants: v.array(memberTenantSchema) }),
					},
				},
			}),
			signedIn,
			async (c) => {
				const { user, tenants } = await c.get("service").auth.me(c.get("principal"));
				return c.json({
					user: user ? userView(user) : null,
					tenants: tenants.map(({ tenant, role, account }) => memberTenantView(tenant, role, account)),
				});
			},
		)
		.post(
			"/logout",
			doc({
				tags: ["Auth"],
				access: { permission: null, reach: "tenant" },
				summary: "Revoke the session token of this request",
				responses: { 200: { description: "logged out", schema: v.object({ message: v.string() }) } },
				errors: { 422: "the credential is an API key, not a session token" },
			}),
			signedIn,
			async (c) => {
				await c.get("service").auth.logout(c.get("principal"));
				return c.json({ message: "Logged out" });
			},
		);
}
