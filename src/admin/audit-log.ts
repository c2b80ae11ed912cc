import { Injectable } from '@nestjs/common';
import { AuditLogRepository, type AuditEventRecord } from './audit-log.repository.js';

/** Where an admin acted from. */
export type AdminChannel = 'page' | 'api' | 'cli';

/** Who acts: an admin's account (pages, API) or whoever runs the CLI on the instance. */
export interface Actor {
  /** Null for the CLI. */
  accountId: string | null;
  /** The admin's e-mail address, or `cli`. */
  label: string;
  via: AdminChannel;
}

/** The CLI's actor: whoever can run `shortlink` against the database operates the instance. */
export const CLI_ACTOR: Actor = { accountId: null, label: 'cli', via: 'cli' };

/** What an admin did, by stable names. */
export type AuditAction =
  | 'account.create_admin'
  | 'account.grant_admin'
  | 'account.revoke_admin'
  | 'account.disable'
  | 'account.enable'
  | 'account.delete'
  | 'link.disable'
  | 'link.enable'
  | 'host.block'
  | 'host.unblock'
  | 'report.dismiss';

export type AuditTargetType = 'account' | 'link' | 'host' | 'report';

export interface AuditEventView {
  id: string;
  created_at: string;
  actor: string;
  via: string;
  action: string;
  target_type: string;
  target: string;
  reason: string | null;
}

function toView(event: AuditEventRecord): AuditEventView {
  return {
    id: event.id,
    created_at: event.createdAt.toISOString(),
    actor: event.actor,
    via: event.via,
    action: event.action,
    target_type: event.targetType,
    target: event.target,
    reason: event.reason,
  };
}

/** The audit log: every admin action, from the pages, the API or the CLI, written once it is done. */
@Injectable()
export class AuditLog {
  constructor(private readonly events: AuditLogRepository) {}

  async record(
    actor: Actor,
    action: AuditAction,
    target: { type: AuditTargetType; name: string },
    reason?: string | null,
  ): Promise<void> {
    await this.events.add({
      actorId: actor.accountId,
      actor: actor.label,
      via: actor.via,
      action,
      targetType: target.type,
      target: target.name,
      reason: reason ?? null,
    });
  }

  async list(limit: number, offset: number): Promise<{ data: AuditEventView[]; total: number }> {
    const { events, total } = await this.events.list(limit, offset);
    return { data: events.map(toView), total };
  }
}
