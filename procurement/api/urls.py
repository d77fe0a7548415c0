"""`/api/v1/`: sessions, tasks, approvals and the OpenAPI schema (DESIGN §10)."""
from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from procurement.api import receipts as receiving
from procurement.api import attachments, chat, delegations, invoices, memory, notices, review, timetravel, tokens, views

app_name = "api"

# Ids are matched as strings so a malformed one answers a JSON 404, like an unknown one.
urlpatterns = [
    path("sessions/", views.SessionListView.as_view(), name="session-list"),
    path("sessions/<str:pk>/", views.SessionDetailView.as_view(), name="session-detail"),
    path("sessions/<str:pk>/messages/", chat.SessionMessageView.as_view(), name="session-messages"),
    path("sessions/<str:pk>/attachments/", attachments.SessionAttachmentView.as_view(), name="session-attachments"),
    path("tasks/", views.TaskListView.as_view(), name="task-list"),
    path("tasks/<str:pk>/", views.TaskDetailView.as_view(), name="task-detail"),
    path("tasks/<str:pk>/cancel/", views.TaskCancelView.as_view(), name="task-cancel"),
    path("tasks/<str:pk>/watchers/", views.TaskWatchersView.as_view(), name="task-watchers"),
    path("tasks/<str:pk>/watchers/<str:username>/", views.TaskWatcherView.as_view(), name="task-watcher"),
    path("requests/", views.RequestListView.as_view(), name="request-list"),
    path("approvals/", views.ApprovalListView.as_view(), name="approval-list"),
    path("approvals/<str:pk>/", views.ApprovalDetailView.as_view(), name="approval-detail"),
    path("approvals/<str:pk>/decision/", views.ApprovalDecisionView.as_view(), name="approval-decision"),
    path("auth/token/", tokens.TokenView.as_view(), name="auth-token"),
    path("auth/tokens/", tokens.TokenListView.as_view(), name="auth-token-list"),
    path("auth/tokens/<str:pk>/", tokens.TokenDetailView.as_view(), name="auth-token-detail"),
    path("notifications/", notices.NotificationListView.as_view(), name="notification-list"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
]
urlpatterns += receiving.urlpatterns
urlpatterns += (memory.urlpatterns + review.urlpatterns + timetravel.urlpatterns + delegations.urlpatterns
                + invoices.urlpatterns)
